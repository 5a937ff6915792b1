#pragma once
// A proof-number solver: depth-first proof-number search (df-pn; Nagai 2002)
// with the 1 + epsilon trick (Pawlewicz and Lew 2007), a transposition table
// of a bounded size shared by threads, and the game's own draws handled
// soundly. It answers won, lost, drawn or unknown for the side to move
// (docs/SOLVER.md).
//
// Two searches: "the side to move wins" and, if that is disproved, "the
// other side wins"; both disproved is a draw. A position met again on the
// path (repetition, the game's history before the root included) is a
// disproof for either attacker, as it gains the attacker nothing; such a
// disproof holds for its path only, so it is never taken from the table on
// another path (the graph-history interaction). The move cap is not searched:
// a proven win is kept only if its proof is no longer than the plies the cap
// leaves, and a draw without a cap is a draw with one.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/game.h"
#include "core/move.h"

namespace loa::solve {

// The result for the side to move of the position solved.
enum class Outcome { kUnknown, kWin, kLoss, kDraw };

// "won", "lost", "drawn", "unknown".
const char* OutcomeName(Outcome o);

struct SolveLimits {
  double seconds = 0;                       // wall time for both searches (0: none)
  int64_t nodes = 0;                        // searched positions for both (0: none)
  int threads = 1;                          // threads sharing the table
  const std::atomic<bool>* stop = nullptr;  // set by another thread to stop early
};

struct SolveResult {
  Outcome outcome = Outcome::kUnknown;
  // For a win: the first move that keeps it; for a loss: the move that
  // holds out longest in the proof; for a draw: a move that keeps the draw
  // (one whose win search for the opponent was disproved); else the null move.
  Move best_move;
  // The proof's main line: the winner's proving moves and the loser's
  // longest defence, as far as the table still holds it.
  std::vector<Move> line;
  // For a win or a loss: the plies of the proof's longest line (an upper
  // bound on the plies to the end under the winner's proof strategy).
  int proof_plies = 0;
  // For a win or a loss: the positions of the proof tree (each counted once).
  int64_t proof_size = 0;
  int64_t nodes = 0;   // positions searched
  double seconds = 0;  // wall time
};

class Solver {
 public:
  // A solver whose table takes about memory_mb megabytes (at least 1).
  explicit Solver(int64_t memory_mb = 256);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // Solves the game's current position under its rules; a game already over
  // is solved by its verdict.
  SolveResult Solve(const Game& game, const SolveLimits& limits);

  // Forgets every position (the table is kept between Solve calls, so that
  // a second call on a nearby position starts from what the first learned).
  void Clear();

  // The table's entries, and how many of them hold a position now.
  int64_t capacity() const;
  int64_t used() const;

  // The transposition table (solve/dfpn.cpp).
  class Table;

 private:
  std::unique_ptr<Table> table_;
};

}  // namespace loa::solve
