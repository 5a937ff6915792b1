#include "mcts/root_stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "mcts/puct.h"

namespace loa {

namespace {

// Returns whether a is a better engine move than b, neither a proven win.
bool BetterByVisits(const RootChild& a, const RootChild& b) {
  const bool a_lost = a.proven == Proven::kLoss, b_lost = b.proven == Proven::kLoss;
  if (a_lost != b_lost) return b_lost;
  if (a_lost) return a.end_plies > b.end_plies;  // resist longest
  if (a.visits != b.visits) return a.visits > b.visits;
  if (a.q != b.q) return a.q > b.q;
  return a.prior > b.prior;
}

// Returns the visits of child c that KataGo's pruning keeps: up to
// sqrt(k P N) visits are removed while c's PUCT stays below best_puct.
double PrunedVisits(const RootChild& c, double total, double cpuct, double best_puct, float k) {
  const double forced = std::sqrt(k * c.prior * total);
  const double u_scale = cpuct * c.prior * std::sqrt(total);
  double keep = std::max(0.0, double(c.visits) - forced);
  if (best_puct > c.q) {
    // Fewest visits n with q + u_scale / (1 + n) < best_puct.
    keep = std::max(keep, std::ceil(u_scale / (best_puct - c.q) - 1));
  } else {
    keep = c.visits;  // already at or above the best: nothing may go
  }
  keep = std::min(keep, double(c.visits));
  return keep <= 1 ? 0 : keep;  // a single playout is pruned entirely
}

}  // namespace

float MoveTemperature(const SearchParams& params, int ply) {
  if (params.temperature_halflife_plies > 0) {
    const double decay = std::pow(0.5, double(ply) / params.temperature_halflife_plies);
    return float(params.temperature_end + (params.temperature_start - params.temperature_end) * decay);
  }
  return ply < params.temperature_cutoff_plies ? params.temperature_start : params.temperature_end;
}

Move ChooseBestMove(const std::vector<RootChild>& children, float lcb_z) {
  assert(!children.empty());
  const RootChild* best = nullptr;
  for (const RootChild& c : children) {
    if (c.proven == Proven::kWin && (!best || best->proven != Proven::kWin || c.end_plies < best->end_plies)) best = &c;
  }
  if (best) return best->move;
  best = &children[0];
  for (const RootChild& c : children)
    if (BetterByVisits(c, *best)) best = &c;
  if (lcb_z <= 0 || best->proven == Proven::kLoss || best->visits == 0) return best->move;
  // The lower confidence bound of each move visited enough; the most
  // visited move's own bound is the one to beat.
  auto bound = [lcb_z](const RootChild& c) {
    return double(c.q) - lcb_z * double(c.q_stdev) / std::sqrt(double(std::max<uint32_t>(c.visits, 1)));
  };
  const RootChild* chosen = best;
  double chosen_bound = bound(*best);
  for (const RootChild& c : children) {
    if (c.proven == Proven::kLoss || double(c.visits) < kLcbMinVisitShare * best->visits) continue;
    if (const double b = bound(c); b > chosen_bound) {
      chosen = &c;
      chosen_bound = b;
    }
  }
  return chosen->move;
}

std::vector<MoveProbability> PolicyTarget(const std::vector<RootChild>& children, const SearchParams& params,
                                          bool prune) {
  std::vector<MoveProbability> target;
  int shortest_win = -1;
  bool any_not_lost = false;
  double total = 0;
  const RootChild* most_visited = nullptr;
  for (const RootChild& c : children) {
    if (c.proven == Proven::kWin && (shortest_win < 0 || c.end_plies < shortest_win)) shortest_win = c.end_plies;
    any_not_lost |= c.proven != Proven::kLoss;
    total += c.visits;
    if (!most_visited || c.visits > most_visited->visits) most_visited = &c;
  }
  std::vector<double> weight(children.size(), 0.0);
  if (shortest_win >= 0) {
    for (size_t i = 0; i < children.size(); ++i)
      weight[i] = children[i].proven == Proven::kWin && children[i].end_plies == shortest_win;
  } else if (total == 0) {
    for (size_t i = 0; i < children.size(); ++i) weight[i] = children[i].prior;
  } else {
    const double cpuct = ExplorationFactor(params, total);
    const RootChild& best = *most_visited;
    const double best_puct = best.q + cpuct * best.prior * std::sqrt(total) / (1.0 + best.visits);
    for (size_t i = 0; i < children.size(); ++i) {
      const RootChild& c = children[i];
      weight[i] = prune && &c != &best && params.forced_playouts_k > 0
                      ? PrunedVisits(c, total, cpuct, best_puct, params.forced_playouts_k)
                      : c.visits;
    }
  }
  if (any_not_lost && shortest_win < 0) {
    for (size_t i = 0; i < children.size(); ++i)
      if (children[i].proven == Proven::kLoss) weight[i] = 0;
  }
  double sum = 0;
  for (double w : weight) sum += w;
  if (sum <= 0) {  // nothing left (unvisited proven draws): share among the moves not lost
    for (size_t i = 0; i < children.size(); ++i)
      sum += weight[i] = !any_not_lost || children[i].proven != Proven::kLoss;
  }
  for (size_t i = 0; i < children.size(); ++i)
    if (weight[i] > 0) target.push_back({children[i].move, float(weight[i] / sum)});
  return target;
}

double PolicySurprise(const std::vector<MoveProbability>& target, const std::vector<RootChild>& children) {
  double kl = 0;
  for (const MoveProbability& t : target) {
    if (t.probability <= 0) continue;
    const auto child =
        std::find_if(children.begin(), children.end(), [&](const RootChild& c) { return c.move == t.move; });
    const double prior = std::max(1e-6, child == children.end() ? 0.0 : double(child->raw_prior));
    kl += t.probability * std::log(t.probability / prior);
  }
  return std::max(0.0, kl);
}

Move SampleMove(const std::vector<MoveProbability>& target, float temperature, Rng& rng) {
  assert(!target.empty());
  size_t best = 0;
  for (size_t i = 1; i < target.size(); ++i)
    if (target[i].probability > target[best].probability) best = i;
  if (temperature <= kGreedyTemperature) return target[best].move;
  // Relative to the largest, so that p^(1/T) cannot overflow.
  std::vector<double> weight(target.size());
  double sum = 0;
  for (size_t i = 0; i < target.size(); ++i)
    sum += weight[i] = std::pow(double(target[i].probability) / target[best].probability, 1.0 / temperature);
  double x = rng.Uniform() * sum;
  for (size_t i = 0; i < target.size(); ++i) {
    x -= weight[i];
    if (x < 0) return target[i].move;
  }
  return target[best].move;
}

}  // namespace loa
