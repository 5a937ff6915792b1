#pragma once
// What an alpha-beta search is asked and what it answers: the score scale,
// the limits, the switches of its techniques, the result. Below both the
// searcher (alphabeta/search.h) and its threads (alphabeta/search_worker.h).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/move.h"

namespace loa::ab {

// A win for the side to move at ply p scores kWinScore - p; a loss the negative.
inline constexpr int kWinScore = 30000;
// The deepest ply the search reaches (depth plus extensions never pass it).
inline constexpr int kMaxPly = 128;
// The deepest iteration the search starts.
inline constexpr int kMaxSearchDepth = 64;
// The baseline's versions (docs/BASELINE.md): 1 is the search and
// evaluation before the tuned evaluation and MIA's techniques
// (ab:version=1); 2 adds them; 3 adds late-move pruning; 4 adds the
// evaluation's square classes and pieces outside the largest group, with
// weights fitted on version 3's games; 5, today's, adds internal iterative
// reduction, history-aware reductions and the adaptive null move.
inline constexpr int kLatestVersion = 5;

// Returns whether score is a win or loss found by the search.
constexpr bool IsDecisiveScore(int score) { return score > kWinScore - kMaxPly || score < -kWinScore + kMaxPly; }

// When the search stops; zero means no limit of that kind. With only depth or
// nodes set and one thread, the search is deterministic: the same game and
// the same table contents give the same move, score and node count.
struct SearchLimits {
  int depth = 0;       // deepest iteration (1..kMaxSearchDepth)
  int64_t nodes = 0;   // nodes visited by the main thread, counted exactly
  double seconds = 0;  // wall time; no new iteration starts after half of it
};

// Switches for the parts of the search; the tests turn pruning off to
// compare against plain minimax. The defaults are the latest version's.
struct SearchOptions {
  bool transposition_table = true;
  bool move_ordering = true;
  bool null_move = true;
  bool adaptive_null_move = true;    // R = 3 plies above 6 plies of depth, else 2 (Heinz)
  bool late_move_reductions = true;  // only where realization_probability is off
  bool leaf_win_check = true;        // a leaf where the side to move unites in one move is a win
  bool aspiration_windows = false;
  bool realization_probability =
      false;               // depth spent by category probability, with ERPS's re-search (lost: docs/BASELINE.md)
  bool quiescence = true;  // captures that cut the enemy's groups, past the horizon
  // In quiescence, a side whose opponent threatens to unite on its next
  // move (LOA's check) may not stand pat: it tries every move, and with
  // none that parries it has lost.
  bool quiescence_threats = false;
  bool enhanced_transposition_cutoffs = true;
  bool multi_cut = true;
  bool relative_history = true;  // order quiet moves by cutoffs per try, not by cutoffs alone
  // Late-move reductions growing with log(depth) x log(move number), in
  // sixteenths of a ply (Stockfish's form), instead of one or two plies.
  bool log_reductions = false;
  // Late-move pruning: at shallow non-PV nodes, quiet moves after the first
  // few are not searched (a move that ends the game still counts).
  bool late_move_pruning = true;
  int lmp_depth = 3;  // the deepest remaining depth (plies) it prunes at
  int lmp_base = 4;   // quiet moves searched at depth 0; 2 d^2 more at d plies
  // Futility pruning near the horizon at non-PV nodes: a node whose static
  // score beats beta by a margin a ply returns it (reverse futility), and
  // one whose score falls short of alpha by it skips its late quiet moves.
  bool futility = false;
  // Internal iterative reduction: a node of 4 plies or more that the table
  // knows no move for is searched a ply shallower (its ordering is a guess).
  bool internal_reduction = true;
  // A node whose side to move is threatened with a union on the opponent's
  // next move (LOA's check) is searched a ply deeper, within twice the
  // iteration's depth from the root.
  bool threat_extension = false;
  // Late-move reductions a ply smaller for a quiet move that cut off in at
  // least half of its tries (relative history).
  bool history_reductions = true;
  // With a time limit, no new iteration starts after this share of it (an
  // iteration cut short still plays a better move it searched in full):
  // below 1 the search may end well before its time, which a fixed time a
  // move then wastes.
  double iteration_start = 0.5;
  int threads = 1;  // Lazy SMP: helpers search the same root, sharing the table
  // With threads, a thread puts off a move whose position another thread is
  // searching to the end of its list (simplified ABDADA, Kerrigan), at
  // nodes of 3 plies or more, the first move excepted.
  bool abdada = true;
  // With threads, the move of the thread that finished the deepest
  // iteration is played (the main thread's on a tie), not always the main
  // thread's: a helper may have finished an iteration more.
  bool deepest_thread = true;
  int hash_megabytes = 16;

  // The options of a version of the baseline (1 to kLatestVersion).
  static SearchOptions Version(int version);
  // Every pruning, reduction and extension off: a full-width search to the
  // iteration's depth (the tests' minimax reference).
  static SearchOptions Plain();
};

// What a search (or one finished iteration) found.
struct SearchResult {
  Move best;          // a legal move; null only when the game is over
  int score = 0;      // for the side to move
  int depth = 0;      // the last iteration that finished (or the one the best move came from)
  int64_t nodes = 0;  // all threads' nodes
  double seconds = 0;
  std::vector<Move> pv;  // principal variation, best first
};

// Which of the threads' results a Lazy SMP search plays: the index of the
// one that finished the deepest iteration, the first (the main thread's)
// among equals. results must not be empty.
size_t DeepestResult(const std::vector<SearchResult>& results);

}  // namespace loa::ab
