#pragma once
// An evaluator without a net: uniform priors, and a value from uniformly
// random playouts to the end of the game. With the PUCT search and its
// solver this is MCTS with random playouts and proven-win backup, the
// `rollout:` player (Winands, Bjornsson, Saito, "Monte-Carlo Tree Search
// Solver", CG 2008, where LOA was the test domain).

#include <atomic>
#include <cstdint>

#include "core/game.h"
#include "mcts/evaluator.h"

namespace loa {

// Evaluate is thread-safe. One thread with one seed gives the same values
// for the same sequence of calls.
class RolloutEvaluator : public Evaluator {
 public:
  // A playout longer than this many plies is scored a draw; random play
  // unites a side long before (about 100 plies on average from the start,
  // measured with `loaz match random random`).
  static constexpr int kMaxPlayoutPlies = kDefaultMaxPlies;

  // `playouts` random games per position, averaged; `simultaneous` judges a
  // move that unites both sides inside a playout (a value estimate only: the
  // search judges the tree's own moves by the game's rules).
  explicit RolloutEvaluator(uint64_t seed, int playouts = 1, Simultaneous simultaneous = Simultaneous::kDraw);

  // Restarts the random sequence from seed; not while Evaluate runs.
  void Reseed(uint64_t seed) {
    seed_ = seed;
    calls_ = 0;
  }

  // Fills each output with prior 1/n over the n legal moves and the share of
  // wins, draws and losses of the playouts, for the side to move.
  void Evaluate(const Position* positions, int count, EvalOutput* out) override;

 private:
  uint64_t seed_;
  int playouts_;
  Simultaneous simultaneous_;
  std::atomic<uint64_t> calls_{0};
};

}  // namespace loa
