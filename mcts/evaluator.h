#pragma once
// The search's view of a network: a batch evaluator. MCTS knows nothing else
// of the net (docs/DESIGN.md, MCTS).

#include "core/move.h"
#include "core/position.h"

namespace loa {

// What an evaluator says of one position.
struct EvalOutput {
  // Win, draw and loss probabilities for the side to move; they sum to 1.
  float wdl[3] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  // Expected plies to the end of the game (0 when the net has no such head).
  float moves_left = 0;
  // Prior of each legal move, in the order Position::GenerateMoves lists
  // them (the pass alone, prior 1, when it is the only move); they sum to 1.
  int num_moves = 0;
  float priors[kMaxMoves] = {};

  // Returns the expected score for the side to move, win - loss, in [-1, 1].
  float Value() const { return wdl[0] - wdl[2]; }
};

// Evaluates positions in batches. Implementations say whether Evaluate may be
// called from several threads at once; the search drivers say which they need.
class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // Fills out[i] for positions[i], i < count; none of the positions may be a
  // finished game (the search handles those through the rules core).
  virtual void Evaluate(const Position* positions, int count, EvalOutput* out) = 0;

  // Returns whether it evaluates positions on the board of `size`: a net's
  // evaluator the board it was trained on, the shipped nets' each board with
  // a net (BoardSizeEvaluator), the uniform and rollout evaluators any.
  virtual bool PlaysBoardSize(int size) const { return true; }
};

}  // namespace loa
