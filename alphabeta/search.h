#pragma once
// The alpha-beta baseline: iterative-deepening principal-variation search
// (negamax) with a transposition table, move ordering (table move, captures,
// killers, history), null-move pruning and late-move reductions; wins and
// losses scored by distance; draws by repetition recognised inside the tree.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "alphabeta/static_eval.h"
#include "alphabeta/transposition_table.h"
#include "core/game.h"

namespace loa::ab {

// A win for the side to move at ply p scores kWinScore - p; a loss the negative.
inline constexpr int kWinScore = 30000;
// The deepest ply the search reaches (depth plus extensions never pass it).
inline constexpr int kMaxPly = 128;
// The deepest iteration the search starts.
inline constexpr int kMaxSearchDepth = 64;

// Returns whether score is a win or loss found by the search.
constexpr bool IsDecisiveScore(int score) { return score > kWinScore - kMaxPly || score < -kWinScore + kMaxPly; }

// When the search stops; zero means no limit of that kind. With only depth or
// nodes set, the search is deterministic: the same game and the same table
// contents give the same move, score and node count.
struct SearchLimits {
  int depth = 0;       // deepest iteration (1..kMaxSearchDepth)
  int64_t nodes = 0;   // nodes visited, counted exactly
  double seconds = 0;  // wall time; no new iteration starts after half of it
};

// Switches for the parts of the search; the tests turn pruning off to
// compare against plain minimax.
struct SearchOptions {
  bool transposition_table = true;
  bool move_ordering = true;
  bool null_move = true;
  bool late_move_reductions = true;
  bool leaf_win_check = true;       // a leaf where the side to move unites in one move is a win
  bool aspiration_windows = false;  // measured: no gain (docs/DESIGN.md)
  int hash_megabytes = 16;
};

// What a search (or one finished iteration) found.
struct SearchResult {
  Move best;      // a legal move; null only when the game is over
  int score = 0;  // for the side to move
  int depth = 0;  // the last iteration that finished (or the one the best move came from)
  int64_t nodes = 0;
  double seconds = 0;
  std::vector<Move> pv;  // principal variation, best first
};

// An alpha-beta searcher with its own table, killers and history. Not
// thread-safe: one per thread.
class AlphaBeta {
 public:
  explicit AlphaBeta(const SearchOptions& options = SearchOptions(), const EvalWeights& weights = EvalWeights());

  // Returns the best move for the side to move of game (which must not be
  // over) within limits; at least depth 1 is always finished. on_iteration,
  // if given, is called after each finished iteration.
  SearchResult Search(const Game& game, const SearchLimits& limits,
                      const std::function<void(const SearchResult&)>& on_iteration = nullptr);

  // Forgets the table, killers and history (a new game).
  void Clear();

  // Asks a running search to stop soon (after its first iteration, which
  // always finishes); it returns its best move so far. A no-op when none
  // runs. Thread-safe: the one member another thread may call.
  void Stop() { stop_requested_.store(true, std::memory_order_relaxed); }

 private:
  struct Frame {
    uint64_t hash;
    int irreversible;  // index of the latest frame no earlier frame can equal
  };

  int AspirationSearch(const Position& pos, int depth, int previous, Move& best);
  int SearchRoot(const Position& pos, int depth, int alpha, int beta, Move& best);
  int Negamax(const Position& pos, int alpha, int beta, int depth, int ply, bool null_allowed);
  bool ProbeTable(const Position& pos, int alpha, int beta, int depth, int ply, bool may_cut, Move& table_move,
                  int& score) const;
  bool NullMoveCutoff(const Position& pos, int beta, int depth, int ply, int& score);
  int SearchChild(const Position& child, bool first, int alpha, int beta, int depth, int reduction, int ply);
  bool EndsHere(const Position& child, Color mover, int ply, int& score) const;
  bool IsRepetitionDraw() const;
  bool CanUniteNow(const Position& pos) const;
  void OrderMoves(const Position& pos, MoveList& moves, int* keys, Move table_move, int ply) const;
  void RewardCutoff(Color us, Move move, int depth, int ply);
  bool OutOfBudget();
  void PushFrame(const Position& child, Move move);

  SearchOptions options_;
  EvalWeights weights_;
  TranspositionTable table_;
  Move killers_[kMaxPly][2];
  int history_[2][kNumSquares][kNumSquares];
  Move pv_[kMaxPly + 1][kMaxPly + 1];
  int pv_length_[kMaxPly + 1];

  // The current search.
  std::vector<Frame> frames_;
  int root_frame_ = 0;
  int root_game_ply_ = 0;
  Rules rules_;
  SearchLimits limits_;
  std::chrono::steady_clock::time_point start_;
  int64_t nodes_ = 0;
  bool stopped_ = false;
  bool can_stop_ = false;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace loa::ab
