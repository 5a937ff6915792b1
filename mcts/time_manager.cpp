#include "mcts/time_manager.h"

#include <algorithm>
#include <cmath>

namespace loa {

namespace {

// The share of a byo-yomi move the search may use: the rest absorbs the
// protocol and scheduling jitter (our choice).
constexpr double kByoyomiShare = 0.8;

// The least a timed move gets, so that a search can at least expand the root.
constexpr double kMinimumSeconds = 0.005;

}  // namespace

double MoveTimeBudget(double main_seconds, double byoyomi_seconds, int byoyomi_stones, const SearchParams& params,
                      double increment_seconds, int moves_to_go) {
  main_seconds = std::max(0.0, main_seconds);
  byoyomi_seconds = std::max(0.0, byoyomi_seconds);
  increment_seconds = std::max(0.0, increment_seconds);
  if (main_seconds <= 0 && byoyomi_seconds <= 0 && increment_seconds <= 0) return 0;
  const double per_move = byoyomi_seconds / std::max(1, byoyomi_stones) + increment_seconds;
  const double share = moves_to_go > 0 ? std::min(double(moves_to_go), double(params.time_moves_to_go))
                                       : double(params.time_moves_to_go);
  double budget = main_seconds / share + kByoyomiShare * per_move;
  budget = std::min(budget, 0.5 * main_seconds + kByoyomiShare * per_move);
  budget -= params.move_overhead_seconds;
  return std::max(budget, kMinimumSeconds);
}

double MoveTimeLimit(double budget, double main_seconds, const SearchParams& params) {
  if (params.time_extension <= 0 || budget <= 0) return budget;
  const double extended = budget * (1 + params.time_extension);
  return std::max(budget, std::min(extended, budget + 0.25 * std::max(0.0, main_seconds - budget)));
}

bool FallingValue(float previous_value, float value, float drop) {
  return drop > 0 && !std::isnan(previous_value) && value <= previous_value - drop;
}

bool UnsureAtBudget(uint32_t first_visits, uint32_t second_visits) {
  return first_visits < kSureMinVisits || double(second_visits) >= kUnsureVisitShare * double(first_visits);
}

}  // namespace loa
