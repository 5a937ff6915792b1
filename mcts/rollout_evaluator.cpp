#include "mcts/rollout_evaluator.h"

#include <cassert>

#include "core/random.h"

namespace loa {
namespace {

// Plays uniformly random moves from start; returns 0, 1 or 2 (win, draw,
// loss) for the side to move at start.
int Playout(const Position& start, Simultaneous simultaneous, Rng& rng) {
  Position pos = start;
  for (int ply = 0; ply < RolloutEvaluator::kMaxPlayoutPlies; ++ply) {
    MoveList moves;
    pos.GenerateMoves(moves);
    const Color mover = pos.side_to_move();
    pos = pos.Apply(moves[rng.Below(int(moves.size()))]);
    const Verdict verdict = UnitedVerdict(pos, mover, simultaneous);
    if (!verdict.over()) continue;
    if (verdict.result == Result::kDraw) return 1;
    return verdict.result == WinFor(start.side_to_move()) ? 0 : 2;
  }
  return 1;
}

}  // namespace

RolloutEvaluator::RolloutEvaluator(uint64_t seed, int playouts, Simultaneous simultaneous)
    : seed_(seed), playouts_(playouts), simultaneous_(simultaneous) {
  assert(playouts >= 1);
}

void RolloutEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  for (int i = 0; i < count; ++i) {
    Rng rng(MixSeed(seed_, calls_.fetch_add(1, std::memory_order_relaxed)));
    EvalOutput& o = out[i];
    o = EvalOutput();
    o.num_moves = positions[i].CountMoves();
    const float prior = 1.0f / float(o.num_moves);
    for (int m = 0; m < o.num_moves; ++m) o.priors[m] = prior;
    int tally[3] = {0, 0, 0};
    for (int p = 0; p < playouts_; ++p) ++tally[Playout(positions[i], simultaneous_, rng)];
    for (int k = 0; k < 3; ++k) o.wdl[k] = float(tally[k]) / float(playouts_);
  }
}

}  // namespace loa
