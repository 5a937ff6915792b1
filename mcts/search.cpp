#include "mcts/search.h"

#include <algorithm>
#include <limits>
#include <thread>

namespace loa {

namespace {

// The visit target when only time limits a search.
constexpr uint32_t kUnlimitedVisits = std::numeric_limits<uint32_t>::max() / 2;
// The longest principal variation a search reports.
constexpr int kPvLength = 12;

}  // namespace

Search::Search(Evaluator* evaluator, const SearchParams& params)
    : evaluator_(evaluator), params_(params), tree_(params_) {
  params_.Validate();
}

void Search::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  tree_.Clear();
}

void Search::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop_ = true;
  changed_.notify_all();
}

double Search::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool Search::CannotChange(double elapsed) const {
  // Playouts left: by the visit target, and by the time at the rate so far.
  // (Playouts in flight may still land on the second move.)
  double left = double(visit_target_) - tree_.root_visits();
  if (budget_seconds_ > 0) {
    const double done = double(tree_.root_visits()) - start_visits_;
    if (elapsed <= 0 || done <= 0) return false;
    left = std::min(left, done / elapsed * (budget_seconds_ - elapsed));
  }
  uint32_t first = 0, second = 0;
  tree_.TopTwoVisits(&first, &second);
  return first > 0 && double(second) + left < double(first);
}

bool Search::ShouldStop() const {
  if (stop_) return true;
  if (int64_t(tree_.size()) >= params_.max_tree_nodes) return true;
  const double elapsed = budget_seconds_ > 0 || early_stop_ ? Elapsed() : 0;
  if (budget_seconds_ > 0 && elapsed >= budget_seconds_) return true;
  return early_stop_ && CannotChange(elapsed);
}

void Search::Worker() {
  const int batch = params_.leaves_per_batch;
  std::vector<Leaf> leaves(batch);
  std::vector<Position> positions(batch);
  std::vector<EvalOutput> outputs(batch);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (ShouldStop()) {
      stop_ = true;
      changed_.notify_all();
      return;
    }
    bool collided = false;
    const int count = tree_.Gather(batch, visit_target_, leaves.data(), &collided);
    if (count == 0) {
      if (!collided) return;  // the root is proven or has its visits
      const uint64_t seen = backups_;
      changed_.wait(lock, [&] { return backups_ != seen || stop_; });
      continue;
    }
    for (int i = 0; i < count; ++i) positions[i] = leaves[i].position;
    lock.unlock();
    try {
      evaluator_->Evaluate(positions.data(), count, outputs.data());
    } catch (...) {
      lock.lock();
      if (!error_) error_ = std::current_exception();
      stop_ = true;
      changed_.notify_all();
      return;  // the leaves stay pending: Run resets the tree
    }
    lock.lock();
    for (int i = 0; i < count; ++i) tree_.ExpandAndBackup(leaves[i], outputs[i]);
    evaluations_ += count;
    ++backups_;
    changed_.notify_all();
  }
}

SearchResult Search::Run(const Game& game, const SearchLimits& limits) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    start_ = std::chrono::steady_clock::now();
    tree_.SetRoot(game, params_.reuse_tree);
    tree_.BeginSearch(false, false, nullptr);
    budget_seconds_ = limits.seconds;
    visit_target_ = limits.playouts > 0  ? uint32_t(limits.playouts)
                    : limits.seconds > 0 ? kUnlimitedVisits
                                         : uint32_t(params_.playouts);
    start_visits_ = tree_.root_visits();
    early_stop_ = limits.early_stop;
    stop_ = false;
    evaluations_ = 0;
    error_ = nullptr;
  }
  MoveList moves;
  game.position().GenerateMoves(moves);
  if (!(moves.size() == 1 && limits.seconds > 0)) {
    std::vector<std::thread> helpers;
    for (int i = 1; i < params_.threads; ++i) helpers.emplace_back([this] { Worker(); });
    Worker();
    for (std::thread& t : helpers) t.join();
  }

  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) {
    tree_.Clear();
    std::rethrow_exception(error_);
  }
  SearchResult result = ResultLocked();
  if (result.children.empty()) result.best_move = moves[0];
  return result;
}

SearchResult Search::Progress() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ResultLocked();
}

SearchResult Search::ResultLocked() const {
  SearchResult result;
  result.children = tree_.RootChildren();
  if (!result.children.empty()) {
    result.best_move = ChooseBestMove(result.children);
    result.pv = tree_.PrincipalVariation(result.best_move, kPvLength);
  }
  result.value = tree_.RootValue();
  result.draw = tree_.RootDraw();
  result.proven = tree_.RootProven();
  for (const RootChild& c : result.children)
    if (c.move == result.best_move && c.proven != Proven::kUnknown) result.end_plies = c.end_plies + 1;
  result.visits = tree_.root_visits();
  result.playouts = int64_t(result.visits) - start_visits_;
  result.evaluations = evaluations_;
  result.seconds = Elapsed();
  result.tree_size = tree_.size();
  return result;
}

}  // namespace loa
