#include "alphabeta/search.h"

#include <algorithm>
#include <cassert>
#include <thread>

#include "alphabeta/search_worker.h"

namespace loa::ab {

SearchOptions SearchOptions::Version(int version) {
  SearchOptions options;
  if (version <= 4) options.adaptive_null_move = options.internal_reduction = options.history_reductions = false;
  if (version <= 2) options.late_move_pruning = false;
  if (version == 1) {
    options.quiescence = false;
    options.enhanced_transposition_cutoffs = false;
    options.multi_cut = false;
    options.relative_history = false;
  }
  return options;
}

SearchOptions SearchOptions::Plain() {
  SearchOptions options = Version(1);
  options.null_move = false;
  options.late_move_reductions = false;
  options.leaf_win_check = false;
  options.hash_megabytes = 1;
  return options;
}

AlphaBeta::AlphaBeta(const SearchOptions& options, const EvalWeights& weights, const CategoryModel& categories)
    : options_(options),
      weights_(weights),
      categories_(categories),
      table_(options.transposition_table ? options.hash_megabytes : 0),
      searching_(options.threads > 1 && options.abdada ? std::make_unique<SearchingNow>() : nullptr) {
  for (int i = 0; i < std::max(1, options.threads); ++i)
    workers_.push_back(std::make_unique<SearchWorker>(
        i, SharedSearch{options_, weights_, categories_, table_, searching_.get(), stop_requested_, stop_all_}));
}

AlphaBeta::~AlphaBeta() = default;

void AlphaBeta::Clear() {
  table_.Clear();
  for (auto& worker : workers_) worker->Clear();
}

SearchResult AlphaBeta::Search(const Game& game, const SearchLimits& limits,
                               const std::function<void(const SearchResult&)>& on_iteration) {
  assert(!game.over());
  stop_requested_.store(false, std::memory_order_relaxed);
  stop_all_.store(false, std::memory_order_relaxed);
  table_.NewSearch();
  const auto start = std::chrono::steady_clock::now();
  for (auto& worker : workers_) worker->Prepare(game, limits, start);
  std::vector<SearchResult> results(workers_.size());
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < workers_.size(); ++i)
    helpers.emplace_back([&, i] { results[i] = workers_[i]->Run(game, nullptr); });
  results[0] = workers_[0]->Run(game, on_iteration);
  stop_all_.store(true, std::memory_order_relaxed);
  for (auto& helper : helpers) helper.join();
  SearchResult result = results[options_.deepest_thread ? DeepestResult(results) : 0];
  result.seconds = results[0].seconds;
  result.nodes = 0;
  for (const auto& worker : workers_) result.nodes += worker->nodes();
  return result;
}

size_t DeepestResult(const std::vector<SearchResult>& results) {
  assert(!results.empty());
  size_t best = 0;
  for (size_t i = 1; i < results.size(); ++i)
    if (results[i].depth > results[best].depth && !results[i].best.is_null()) best = i;
  return best;
}

}  // namespace loa::ab
