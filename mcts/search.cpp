#include "mcts/search.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "mcts/time_manager.h"

namespace loa {

namespace {

// The visit target when only time limits a search.
constexpr uint32_t kUnlimitedVisits = std::numeric_limits<uint32_t>::max() / 2;
// The longest principal variation a search reports.
constexpr int kPvLength = 12;
// Smart pruning judges the rate of a timed search once this share of its
// budget has passed since the tree was ready.
constexpr double kSmartPruningWait = 0.1;

}  // namespace

Search::Search(Evaluator* evaluator, const SearchParams& params)
    : evaluator_(evaluator), params_(params), tree_(params_) {
  params_.Validate();
  scratch_.resize(size_t(params_.threads));
  for (Scratch& s : scratch_) {
    s.leaves.resize(size_t(params_.leaves_per_batch));
    s.positions.resize(size_t(params_.leaves_per_batch));
    s.outputs.resize(size_t(params_.leaves_per_batch));
  }
}

Search::~Search() {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    pool_quit_ = true;
  }
  pool_wake_.notify_all();
  for (std::thread& t : pool_) t.join();
}

void Search::Clear() {
  std::lock_guard<std::mutex> lock(state_mutex_);
  tree_.Clear();
}

void Search::Stop() {
  stop_ = true;
  WakeWaiters();
}

double Search::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool Search::CannotChange(double elapsed) const {
  // Playouts left: by the visit target, and by the time at the rate so far,
  // divided by the smart-pruning factor. (Playouts in flight may still land
  // on the second move.)
  const uint32_t visits = tree_.root_visits();
  double left = double(visit_target_) - visits;
  if (budget_seconds_ > 0) {
    // The rate counts from the tree's readiness (SetRoot's compaction of a
    // reused tree is no part of it) and only once a share of the budget has
    // passed: a rate of the first batch or two is no rate (lc0 waits 200 ms).
    const double searching = elapsed - ready_seconds_;
    const double done = double(visits) - start_visits_;
    if (searching < kSmartPruningWait * budget_seconds_ || done <= 0) return false;
    // Past the budget only an unsure search runs on (ShouldStop), to its
    // limit.
    const double deadline = elapsed < budget_seconds_ ? budget_seconds_ : max_seconds_;
    left = std::min(left, done / searching * (deadline - elapsed));
  }
  left /= params_.smart_pruning;
  uint32_t first = 0, second = 0;
  tree_.TopTwoVisits(&first, &second);
  return first > 0 && double(second) + left < double(first);
}

bool Search::ShouldStop() const {
  if (stop_.load(std::memory_order_relaxed)) return true;
  if (int64_t(tree_.size()) >= params_.max_tree_nodes) return true;
  const double elapsed = budget_seconds_ > 0 || early_stop_ ? Elapsed() : 0;
  if (budget_seconds_ > 0 && elapsed >= budget_seconds_) {
    if (elapsed >= max_seconds_) return true;
    uint32_t first = 0, second = 0;
    tree_.TopTwoVisits(&first, &second);
    if (!UnsureAtBudget(first, second) && !FallingValue(previous_value_, tree_.RootValue(), params_.time_falling_value))
      return true;
  }
  return early_stop_ && CannotChange(elapsed);
}

void Search::WakeWaiters() {
  if (waiters_.load() == 0) return;
  std::lock_guard<std::mutex> lock(wait_mutex_);
  backed_up_.notify_all();
}

void Search::WaitForBackup(uint64_t seen) {
  // waiters_ goes up before the check, and a backup counts before it looks
  // at waiters_ (both sequentially consistent): no wake-up is lost.
  std::unique_lock<std::mutex> lock(wait_mutex_);
  ++waiters_;
  backed_up_.wait(lock, [&] { return backups_.load() != seen || stop_.load(); });
  --waiters_;
}

void Search::Work(Scratch& scratch) {
  const int batch = params_.leaves_per_batch;
  for (;;) {
    if (ShouldStop()) {
      stop_ = true;
      WakeWaiters();
      return;
    }
    const uint64_t seen = backups_.load();  // before Gather: a backup after it wakes us
    bool collided = false;
    const int count = tree_.Gather(batch, visit_target_, scratch.leaves.data(), &collided, scratch.tree);
    if (count == 0) {
      if (!collided) return;  // the root is proven or has its visits
      WaitForBackup(seen);
      continue;
    }
    for (int i = 0; i < count; ++i) scratch.positions[i] = scratch.leaves[i].position;
    try {
      evaluator_->Evaluate(scratch.positions.data(), count, scratch.outputs.data());
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      stop_ = true;
      WakeWaiters();
      return;  // the leaves stay pending: Run resets the tree
    }
    tree_.ExpandAndBackup(scratch.leaves.data(), scratch.outputs.data(), count, scratch.tree);
    evaluations_ += count;
    ++backups_;
    WakeWaiters();
  }
}

void Search::PoolLoop(int index) {
  uint64_t done = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(pool_mutex_);
      pool_wake_.wait(lock, [&] { return pool_quit_ || generation_ != done; });
      if (pool_quit_) return;
      done = generation_;
    }
    Work(scratch_[size_t(index)]);
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (--pool_running_ == 0) pool_done_.notify_all();
  }
}

void Search::RunThreads() {
  const int helpers = params_.threads - 1;
  if (helpers > 0) {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    while (int(pool_.size()) < helpers) {
      const int index = int(pool_.size()) + 1;
      pool_.emplace_back([this, index] { PoolLoop(index); });
    }
    ++generation_;
    pool_running_ = helpers;
  }
  pool_wake_.notify_all();
  Work(scratch_[0]);
  if (helpers > 0) {
    std::unique_lock<std::mutex> lock(pool_mutex_);
    pool_done_.wait(lock, [&] { return pool_running_ == 0; });
  }
}

SearchResult Search::Run(const Game& game, const SearchLimits& limits) {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    start_ = std::chrono::steady_clock::now();
    tree_.SetRoot(game, params_.reuse_tree);
    if (params_.threads > 1) {
      // Threads allocate past the bound by at most a block per leaf in flight.
      const int64_t in_flight = int64_t(params_.threads) * params_.leaves_per_batch + 1;
      tree_.Reserve(uint64_t(params_.max_tree_nodes + in_flight * (kMaxMoves + NodeArena::kChunkSize)));
    }
    tree_.BeginSearch(false, false, nullptr);
    budget_seconds_ = limits.seconds;
    max_seconds_ = std::max(limits.seconds, limits.max_seconds);
    previous_value_ = limits.previous_value;
    visit_target_ = limits.playouts > 0  ? uint32_t(limits.playouts)
                    : limits.seconds > 0 ? kUnlimitedVisits
                                         : uint32_t(params_.playouts);
    start_visits_ = tree_.root_visits();
    ready_seconds_ = Elapsed();
    early_stop_ = limits.early_stop && params_.smart_pruning > 0;
    stop_ = false;
    evaluations_ = 0;
    error_ = nullptr;
  }
  MoveList moves;
  game.position().GenerateMoves(moves);
  if (!(moves.size() == 1 && limits.seconds > 0)) RunThreads();

  std::lock_guard<std::mutex> lock(state_mutex_);
  if (error_) {
    tree_.Clear();
    std::rethrow_exception(error_);
  }
  SearchResult result = ResultLocked();
  if (result.children.empty()) result.best_move = moves[0];
  return result;
}

SearchResult Search::Progress() {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return ResultLocked();
}

SearchResult Search::ResultLocked() const {
  SearchResult result;
  result.children = tree_.RootChildren();
  if (!result.children.empty()) {
    result.best_move = ChooseBestMove(result.children, params_.lcb_z);
    result.pv = tree_.PrincipalVariation(result.best_move, kPvLength);
  }
  result.value = tree_.RootValue();
  result.draw = tree_.RootDraw();
  result.proven = tree_.RootProven();
  for (const RootChild& c : result.children)
    if (c.move == result.best_move && c.proven != Proven::kUnknown) result.end_plies = c.end_plies + 1;
  result.visits = tree_.root_visits();
  result.playouts = int64_t(result.visits) - start_visits_;
  result.evaluations = evaluations_.load();
  result.seconds = Elapsed();
  result.tree_size = tree_.size();
  return result;
}

}  // namespace loa
