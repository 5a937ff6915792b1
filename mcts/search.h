#pragma once
// The engine's search of one game: several threads share one tree with
// virtual loss and no tree lock; limits by playouts, by time, or both.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "core/game.h"
#include "mcts/evaluator.h"
#include "mcts/root_stats.h"
#include "mcts/search_params.h"
#include "mcts/tree.h"

namespace loa {

// When one search stops.
struct SearchLimits {
  // Root visits to reach (a reused subtree's count); 0 means params.playouts
  // when there is no time limit, no visit limit when there is one.
  int playouts = 0;
  // Wall-clock budget; 0 means none. A position with one legal move is then
  // answered at once.
  double seconds = 0;
  // The most a search that is unsure at `seconds` may take (a game clock's
  // allowance, MoveTimeLimit); 0 or at most `seconds`: it stops at `seconds`.
  // Unsure: the second most visited move within reach of the first
  // (UnsureAtBudget).
  double max_seconds = 0;
  // The value this side's previous search ended with (for the side to
  // move, as SearchResult::value); NaN: none. A search past its budget whose
  // value has fallen below it by params.time_falling_value goes on as an
  // unsure one does (FallingValue, mcts/time_manager.h).
  float previous_value = std::numeric_limits<float>::quiet_NaN();
  // Stop as soon as no other move can overtake the most visited one in the
  // playouts left (lc0's smart pruning, SearchParams::smart_pruning); the
  // move is unchanged, the visits are not, so analysis and tests may turn it
  // off.
  bool early_stop = true;
};

// What one search found. Values are for the side to move.
struct SearchResult {
  Move best_move;
  float value = 0;                   // in [-1, 1]; exact when proven
  float draw = 0;                    // mean draw probability
  Proven proven = Proven::kUnknown;  // the root's result
  int end_plies = 0;                 // when proven: plies to the end
  uint32_t visits = 0;               // root visits at the end
  int64_t playouts = 0;              // visits this search added
  int64_t evaluations = 0;           // positions sent to the evaluator
  double seconds = 0;
  uint32_t tree_size = 0;           // arena slots in use
  std::vector<RootChild> children;  // the root's moves
  std::vector<Move> pv;             // the best move, then the most visited replies
};

// The engine's search. Run is not reentrant (one search at a time); Stop
// and Progress may be called from any thread. With params.threads > 1 the
// evaluator's Evaluate must be thread-safe: the threads (the caller's and a
// pool of params.threads - 1 started on the first search and kept until the
// search is destroyed, as lc0 and KataGo keep theirs) share one tree
// without a tree lock (mcts/tree.h), each evaluating its own leaves.
class Search {
 public:
  // evaluator must outlive the search; params are copied.
  Search(Evaluator* evaluator, const SearchParams& params);
  // Ends the pool's threads (no search may be running).
  ~Search();

  // Searches the game's position (the game must not be over), keeping the
  // tree of the previous search when params.reuse_tree and the game goes on
  // from it. Rethrows an exception of the evaluator (the tree is then reset).
  SearchResult Run(const Game& game, const SearchLimits& limits);

  // Returns what the search has found so far, as Run would return it now
  // (best_move null while the root has no visited move): the running
  // search's state, else the last one's. Thread-safe; it reads the tree as
  // the search threads update it.
  SearchResult Progress();

  // Asks a running search to stop soon; a no-op when none runs.
  void Stop();

  // Forgets the tree (a new game); not while Run runs.
  void Clear();

  const SearchParams& params() const { return params_; }

 private:
  // One thread's scratch space, kept between searches.
  struct Scratch {
    std::vector<Leaf> leaves;
    std::vector<Position> positions;
    std::vector<EvalOutput> outputs;
    TreeScratch tree;  // the tree's scratch for this thread's gathers and backups
  };

  // Runs the search on this thread and the pool's; returns when all stop.
  void RunThreads();
  // One thread's share of a search: gathers, evaluates, backs up until the
  // search stops.
  void Work(Scratch& scratch);
  // The pool's threads: one Work per search.
  void PoolLoop(int index);
  // Waits until a backup after the count `seen` or a stop.
  void WaitForBackup(uint64_t seen);
  // Wakes the threads waiting in WaitForBackup.
  void WakeWaiters();
  bool ShouldStop() const;
  bool CannotChange(double elapsed) const;
  double Elapsed() const;
  SearchResult ResultLocked() const;

  Evaluator* evaluator_;
  const SearchParams params_;
  SearchTree tree_;

  // Guards the tree's shape (Run's SetRoot, its result, Clear, Progress)
  // and the settings of the search below, written before its threads start.
  std::mutex state_mutex_;
  uint32_t visit_target_ = 0;
  uint32_t start_visits_ = 0;
  double budget_seconds_ = 0;
  double max_seconds_ = 0;    // SearchLimits::max_seconds
  float previous_value_ = 0;  // SearchLimits::previous_value
  bool early_stop_ = true;
  std::chrono::steady_clock::time_point start_;
  double ready_seconds_ = 0;  // from start_ until the tree was ready (SetRoot)

  // The running search.
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> evaluations_{0};
  std::atomic<uint64_t> backups_{0};  // batches backed up: collided threads wait for the next
  std::atomic<int> waiters_{0};
  std::mutex wait_mutex_;
  std::condition_variable backed_up_;
  std::mutex error_mutex_;
  std::exception_ptr error_;  // the first evaluator exception

  // The pool: each search is a generation; the caller waits until every
  // pool thread has finished it.
  std::vector<Scratch> scratch_;  // [0]: the caller's; [i]: pool thread i
  std::vector<std::thread> pool_;
  std::mutex pool_mutex_;
  std::condition_variable pool_wake_, pool_done_;
  uint64_t generation_ = 0;
  int pool_running_ = 0;
  bool pool_quit_ = false;
};

}  // namespace loa
