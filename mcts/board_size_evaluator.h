#pragma once
// One evaluator a board size: a net plays the board it was trained on, so
// a player that plays every board with a net (the shipped nets, one a size)
// searches through this, which hands each position to its board's.

#include <map>
#include <memory>

#include "mcts/evaluator.h"

namespace loa {

// Evaluates each position with the evaluator of its board's size. Evaluate
// is thread-safe when every inner evaluator's is.
class BoardSizeEvaluator : public Evaluator {
 public:
  // Owns the evaluators, keyed by board size; throws loa::Error when there
  // is none, one is null, or one does not play the size it is keyed by.
  explicit BoardSizeEvaluator(std::map<int, std::unique_ptr<Evaluator>> by_size);

  // Hands each run of positions of one size to that size's evaluator in one
  // call; every position's size must be one it plays.
  void Evaluate(const Position* positions, int count, EvalOutput* out) override;
  bool PlaysBoardSize(int size) const override { return by_size_.count(size) > 0; }

 private:
  std::map<int, std::unique_ptr<Evaluator>> by_size_;
};

}  // namespace loa
