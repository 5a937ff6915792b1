#include "mcts/uniform_evaluator.h"

namespace loa {

void UniformEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  for (int i = 0; i < count; ++i) {
    EvalOutput& o = out[i];
    o = EvalOutput();
    o.num_moves = positions[i].CountMoves();
    const float prior = 1.0f / float(o.num_moves);
    for (int m = 0; m < o.num_moves; ++m) o.priors[m] = prior;
  }
}

}  // namespace loa
