#pragma once
// An evaluator that averages another over board symmetries (docs/DESIGN.md,
// Network: the rules are invariant under the 8 symmetries of the square).

#include <memory>

#include "mcts/evaluator.h"

namespace loa {

// Evaluates each position under symmetries 0 .. n-1 (net/symmetry.h; 8: all
// of them) in one batch of the inner evaluator, and averages the WDL, the
// moves left and each move's prior. Evaluate is thread-safe when the inner
// evaluator's is.
class SymmetricEvaluator : public Evaluator {
 public:
  // Owns inner; symmetries in 1..8 (else loa::Error).
  SymmetricEvaluator(std::unique_ptr<Evaluator> inner, int symmetries);

  void Evaluate(const Position* positions, int count, EvalOutput* out) override;
  bool PlaysBoardSize(int size) const override { return inner_->PlaysBoardSize(size); }

 private:
  std::unique_ptr<Evaluator> inner_;
  int symmetries_;
};

}  // namespace loa
