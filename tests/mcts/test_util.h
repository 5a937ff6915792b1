#pragma once
// Mock evaluators and a brute-force solver for the search tests.

#include <atomic>
#include <functional>
#include <vector>

#include "core/game.h"
#include "core/random.h"
#include "mcts/evaluator.h"
#include "mcts/root_stats.h"

namespace loa::testing {

// Returns games at various stages (0-39 random plies, none over) with a
// fixed seed.
inline std::vector<Game> SomeGames(int count, uint64_t seed) {
  std::vector<Game> games;
  Rng rng(seed);
  while (int(games.size()) < count) {
    Game game;
    const int plies = int(rng.Next() % 40);
    for (int i = 0; i < plies && !game.over(); ++i) {
      MoveList moves;
      game.LegalMoves(moves);
      game.Play(moves[int(rng.Next() % moves.size())]);
    }
    if (!game.over()) games.push_back(game);
  }
  return games;
}

// Deterministic, batch-independent pseudo-random priors and values drawn
// from the position's hash: a stand-in for a net. Thread-safe.
class HashEvaluator : public Evaluator {
 public:
  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    for (int i = 0; i < count; ++i) {
      const uint64_t h = Mix(positions[i].hash() ^ positions[i].pieces(kBlack));
      out[i] = EvalOutput();
      out[i].num_moves = positions[i].CountMoves();
      float sum = 0;
      for (int m = 0; m < out[i].num_moves; ++m) sum += out[i].priors[m] = 0.05f + float(Mix(h + m) % 1000) / 1000;
      for (int m = 0; m < out[i].num_moves; ++m) out[i].priors[m] /= sum;
      const float win = float(h % 601) / 1000, loss = float((h >> 20) % 601) / 1000;
      out[i].wdl[0] = win;
      out[i].wdl[2] = loss;
      out[i].wdl[1] = 1 - win - loss;
    }
    calls_.fetch_add(1, std::memory_order_relaxed);
    positions_.fetch_add(count, std::memory_order_relaxed);
  }
  int64_t calls() const { return calls_.load(); }
  int64_t positions() const { return positions_.load(); }

 private:
  std::atomic<int64_t> calls_{0}, positions_{0};
};

// Uniform priors, and the value a function gives for the side to move.
class ValueEvaluator : public Evaluator {
 public:
  explicit ValueEvaluator(std::function<float(const Position&)> value) : value_(std::move(value)) {}
  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    for (int i = 0; i < count; ++i) {
      out[i] = EvalOutput();
      out[i].num_moves = positions[i].CountMoves();
      for (int m = 0; m < out[i].num_moves; ++m) out[i].priors[m] = 1.0f / out[i].num_moves;
      const float v = value_(positions[i]);
      out[i].wdl[0] = v > 0 ? v : 0;
      out[i].wdl[2] = v < 0 ? -v : 0;
      out[i].wdl[1] = 1 - out[i].wdl[0] - out[i].wdl[2];
    }
  }

 private:
  std::function<float(const Position&)> value_;
};

// Returns +1 when the side to move wins within `plies` plies whatever the
// opponent does, -1 when it loses within them whatever it does, else 0; by
// brute force over the rules core's Game (repetition included).
inline int SolveWithin(Game& game, int plies) {
  if (game.over()) {
    if (game.result() == Result::kDraw) return 0;
    return game.result() == WinFor(game.position().side_to_move()) ? 1 : -1;
  }
  if (plies == 0) return 0;
  MoveList moves;
  game.LegalMoves(moves);
  int best = -1;
  for (Move m : moves) {
    game.Play(m);
    best = std::max(best, -SolveWithin(game, plies - 1));
    game.Undo();
    if (best == 1) break;
  }
  return best;
}

// Returns the same for the position after m.
inline int SolveAfter(Game game, Move m, int plies) {
  game.Play(m);
  return -SolveWithin(game, plies);
}

// Returns a root move with the given statistics; its move, from square
// `index` one rank up, differs for every index.
inline RootChild Child(int index, float prior, uint32_t visits, float q, Proven proven = Proven::kUnknown,
                       int end = 0) {
  RootChild c;
  c.move = Move(Square(index), Square(index + 8), kNorth, false);
  c.prior = c.raw_prior = prior;
  c.visits = visits;
  c.q = q;
  c.proven = proven;
  c.end_plies = end;
  return c;
}

}  // namespace loa::testing
