#pragma once
// An evaluator that knows nothing: uniform priors and an even value. For
// tests, benchmarks and the `mcts:evaluator=uniform` player.

#include "mcts/evaluator.h"

namespace loa {

// Stateless; Evaluate is thread-safe.
class UniformEvaluator : public Evaluator {
 public:
  // Fills each output with prior 1/n over the n legal moves and win, draw
  // and loss 1/3 each (value 0).
  void Evaluate(const Position* positions, int count, EvalOutput* out) override;
};

}  // namespace loa
