#pragma once
// What a finished search says of the root's moves, and the choices made from
// it: the engine's best move, self-play's policy target and sampled move.

#include <cstdint>
#include <vector>

#include "core/move.h"
#include "core/random.h"
#include "mcts/node.h"
#include "mcts/search_params.h"

namespace loa {

// One root move after a search. Values are for the root's side to move.
struct RootChild {
  Move move;
  float prior = 0;      // as searched (with noise, if any)
  float raw_prior = 0;  // the net's, before any noise
  uint32_t visits = 0;
  float q = 0;                       // mean value; the exact one when proven
  float d = 0;                       // mean draw probability
  float q_stdev = 0;                 // the spread (standard deviation) of its visits' values; 0 when proven
  Proven proven = Proven::kUnknown;  // the result of playing this move
  int end_plies = 0;                 // when proven: plies to the end after this move
};

// A policy target entry: a move and its share of the search.
struct MoveProbability {
  Move move;
  float probability = 0;
};

// Below this, a temperature means "take the best move": p^(1/T) overflows
// long before T reaches 0.
inline constexpr float kGreedyTemperature = 1e-3f;

// Returns the move temperature at `ply` under the schedule of params.
float MoveTemperature(const SearchParams& params, int ply);

// Returns the engine's move: a proven win (the shortest), else the most
// visited move that is not a proven loss (ties to higher Q, then prior), else
// the proven loss that lasts longest. children must not be empty.
// With lcb_z > 0 (KataGo's and Leela Zero's lower confidence bound), among
// the moves not proven lost with at least kLcbMinVisitShare of the most
// visited one's visits, the one of highest Q - lcb_z x stdev / sqrt(visits)
// is played instead.
Move ChooseBestMove(const std::vector<RootChild>& children, float lcb_z = 0);

// The least share of the most visited move's visits that a move needs for
// its lower confidence bound to count (KataGo's minVisitPropForLCB).
inline constexpr double kLcbMinVisitShare = 0.15;

// Returns the policy target of a search, probabilities summing to 1, moves
// with no share left out:
//  - a proven win: the shortest winning moves, shared equally;
//  - else the visit counts, without proven losses when another move is not
//    one, after KataGo's forced-playout pruning when `prune` (params give k
//    and cpuct); with no visits at all (a one-playout search), the priors.
std::vector<MoveProbability> PolicyTarget(const std::vector<RootChild>& children, const SearchParams& params,
                                          bool prune);

// Returns the policy surprise of a search: the KL divergence (nats) of its
// target from the net's raw priors at the root, KataGo's measure of how much
// the search taught the net. Priors are floored at 1e-6.
double PolicySurprise(const std::vector<MoveProbability>& target, const std::vector<RootChild>& children);

// Returns a move drawn from target with probability proportional to
// p^(1 / temperature); temperature <= 0 returns the most probable move
// (the first on ties). target must not be empty. Self-play plays
// ChooseBestMove instead at a greedy temperature, as the engine does.
Move SampleMove(const std::vector<MoveProbability>& target, float temperature, Rng& rng);

}  // namespace loa
