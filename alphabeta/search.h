#pragma once
// The alpha-beta baseline, after MIA (Winands 2004; Winands and van den
// Herik 2006): iterative-deepening principal-variation search (negamax) with
// a transposition table, realization-probability search (Winands and
// Bjornsson 2008), quiescence on group-cutting captures, enhanced
// transposition cutoffs, multi-cut, adaptive null move, late-move
// reductions (smaller for moves of good history) and pruning, internal
// iterative reduction, move ordering (table move, killers, relative
// history, category probability), and Lazy SMP threads over the shared
// table (simplified ABDADA; the deepest thread's move played); wins and
// losses scored by distance; draws by repetition recognised inside the
// tree. Every technique is a switch of SearchOptions; docs/BASELINE.md has
// the match that decided each.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "alphabeta/move_category.h"
#include "alphabeta/search_types.h"
#include "alphabeta/static_eval.h"
#include "alphabeta/transposition_table.h"
#include "core/game.h"

namespace loa::ab {

class SearchWorker;  // one thread's search (alphabeta/search_worker.h)

// An alpha-beta searcher with its own table, killers and history, and its
// helper threads when options.threads > 1. Not thread-safe: Search runs on
// one thread at a time; Stop may be called from any.
class AlphaBeta {
 public:
  explicit AlphaBeta(const SearchOptions& options = SearchOptions(),
                     const EvalWeights& weights = EvalWeights::Default(),
                     const CategoryModel& categories = CategoryModel::Default());
  ~AlphaBeta();
  AlphaBeta(const AlphaBeta&) = delete;
  AlphaBeta& operator=(const AlphaBeta&) = delete;

  // Returns the best move for the side to move of game (which must not be
  // over) within limits; at least depth 1 is always finished. on_iteration,
  // if given, is called on this thread after each finished iteration.
  SearchResult Search(const Game& game, const SearchLimits& limits,
                      const std::function<void(const SearchResult&)>& on_iteration = nullptr);

  // Forgets the table, killers and history (a new game).
  void Clear();

  // Asks a running search to stop soon (after its first iteration, which
  // always finishes); it returns its best move so far. A no-op when none
  // runs. Thread-safe: the one member another thread may call.
  void Stop() { stop_requested_.store(true, std::memory_order_relaxed); }

 private:
  SearchOptions options_;
  EvalWeights weights_;
  CategoryModel categories_;
  TranspositionTable table_;
  std::vector<std::unique_ptr<SearchWorker>> workers_;  // [0] runs on the caller's thread
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> stop_all_{false};        // set by the main worker when it ends: the helpers end too
  std::unique_ptr<SearchingNow> searching_;  // with threads and abdada
};

}  // namespace loa::ab
