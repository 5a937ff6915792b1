// The engine's search: legal moves from many threads, determinism with one,
// tree reuse, stopping, errors, and the time budget.

#include "mcts/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "mcts/time_manager.h"
#include "mcts/uniform_evaluator.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::HashEvaluator;
using testing::SomeGames;

// Checks the visit bookkeeping of an unproven root.
void ExpectConsistent(const SearchResult& result) {
  if (result.proven != Proven::kUnknown) return;
  uint32_t sum = 0;
  for (const RootChild& c : result.children) {
    sum += c.visits;
    // Values lie in [-1, 1]: so does their spread.
    EXPECT_GE(c.q_stdev, 0.0f);
    EXPECT_LE(c.q_stdev, 1.0001f);
  }
  EXPECT_EQ(sum + 1, result.visits);
}

// Searches game to `playouts` visits without an early stop; expects a legal
// move, a consistent root and, unless the root is proven, the visits
// exactly.
SearchResult SearchToTarget(Search& search, const Game& game, int playouts) {
  SearchLimits limits;
  limits.playouts = playouts;
  limits.early_stop = false;
  const SearchResult result = search.Run(game, limits);
  EXPECT_TRUE(game.position().IsLegal(result.best_move));
  ExpectConsistent(result);
  if (result.proven == Proven::kUnknown) {
    EXPECT_EQ(result.visits, uint32_t(playouts));
  }
  return result;
}

TEST(SearchTest, ManyThreadsReturnLegalMoves) {
  for (bool multi_gather : {false, true}) {
    SearchParams params;
    params.threads = 4;
    params.leaves_per_batch = 4;
    params.multi_gather = multi_gather;
    HashEvaluator evaluator;
    Search search(&evaluator, params);
    for (const Game& game : SomeGames(12, 3)) SearchToTarget(search, game, 600);
  }
}

TEST(SearchTest, OneThreadIsDeterministic) {
  SearchParams params;
  HashEvaluator first_evaluator, second_evaluator;
  Search first(&first_evaluator, params), second(&second_evaluator, params);
  for (const Game& game : SomeGames(4, 9)) {
    const SearchResult a = first.Run(game, SearchLimits()), b = second.Run(game, SearchLimits());
    EXPECT_EQ(a.best_move, b.best_move);
    ASSERT_EQ(a.children.size(), b.children.size());
    for (size_t i = 0; i < a.children.size(); ++i) {
      EXPECT_EQ(a.children[i].visits, b.children[i].visits);
      EXPECT_EQ(a.children[i].q, b.children[i].q);
    }
  }
}

// One thread's search, pinned: the visits of the root's moves after 3,000
// playouts (with leaves batched four at a time, then one at a time), folded
// into one number. The shared tree's atomics and locks must leave one
// thread's search exactly as it was; any change to it shows here.
uint64_t OneThreadSignature(int leaves_per_batch) {
  SearchParams params;
  params.leaves_per_batch = leaves_per_batch;
  HashEvaluator evaluator;
  Search search(&evaluator, params);
  uint64_t signature = 0;
  for (const Game& game : SomeGames(3, 5)) {
    SearchLimits limits;
    limits.playouts = 3000;
    limits.early_stop = false;
    for (const RootChild& c : search.Run(game, limits).children) signature = signature * 31 + c.visits;
  }
  return signature;
}

TEST(SearchTest, OneThreadSearchesAsRecorded) {
  // Recorded with the tree of one lock (ae85e04); the shared tree keeps them.
  EXPECT_EQ(OneThreadSignature(1), 9560086888322380461u);
  EXPECT_EQ(OneThreadSignature(4), 2480577510630519665u);
}

TEST(SearchTest, ProgressReadsARunningSearchOfManyThreads) {
  SearchParams params;
  params.threads = 4;
  params.leaves_per_batch = 3;
  params.multi_gather = true;
  HashEvaluator evaluator;
  Search search(&evaluator, params);
  const Game game;
  std::atomic<bool> done{false};
  int snapshots = 0;
  std::thread reader([&] {
    uint32_t last_visits = 0;
    while (!done.load()) {
      const SearchResult r = search.Progress();
      ++snapshots;
      if (!r.best_move.is_null()) {
        EXPECT_TRUE(game.position().IsLegal(r.best_move));
      }
      EXPECT_GE(r.visits, last_visits) << "visits only grow during a search";
      last_visits = r.visits;
      EXPECT_GE(r.value, -1.0f);
      EXPECT_LE(r.value, 1.0f);
      for (const RootChild& c : r.children) EXPECT_LE(c.visits, r.visits + 4);
    }
  });
  SearchLimits limits;
  limits.playouts = 20000;
  limits.early_stop = false;
  const SearchResult result = search.Run(game, limits);
  done = true;
  reader.join();
  EXPECT_EQ(result.visits, 20000u);
  ExpectConsistent(result);
  EXPECT_GT(snapshots, 0);
}

TEST(SearchTest, ThePoolServesSearchAfterSearch) {
  // Many short searches on one pool, the tree kept from move to move; each
  // ends with its visit count exactly and a consistent root.
  for (bool multi_gather : {false, true}) {
    SearchParams params;
    params.threads = 3;
    params.leaves_per_batch = multi_gather ? 5 : 2;
    params.multi_gather = multi_gather;
    HashEvaluator evaluator;
    Search search(&evaluator, params);
    Game game;
    for (int ply = 0; ply < 40 && !game.over(); ++ply) {
      const SearchResult result = SearchToTarget(search, game, 300);
      ASSERT_TRUE(game.position().IsLegal(result.best_move)) << multi_gather;
      game.Play(result.best_move);
    }
  }
}

TEST(SearchTest, ReusesTheTreeOfTheMovePlayed) {
  SearchParams params;
  HashEvaluator evaluator;
  Search search(&evaluator, params);
  Game game;
  SearchLimits limits;
  limits.playouts = 800;
  limits.early_stop = false;
  const SearchResult first = search.Run(game, limits);
  EXPECT_EQ(first.playouts, 800);
  game.Play(first.best_move);
  const SearchResult second = search.Run(game, limits);
  EXPECT_EQ(second.visits, 800u);
  EXPECT_LT(second.playouts, 800) << "the reused subtree's visits count";
  search.Clear();
  EXPECT_EQ(search.Run(game, limits).playouts, 800);
}

TEST(SearchTest, EarlyStopKeepsTheMoveAndSavesPlayouts) {
  SearchParams params;
  HashEvaluator evaluator;
  Search full(&evaluator, params), early(&evaluator, params);
  const Game game;
  SearchLimits limits;
  limits.playouts = 2000;
  limits.early_stop = false;
  const SearchResult a = full.Run(game, limits);
  limits.early_stop = true;
  const SearchResult b = early.Run(game, limits);
  EXPECT_EQ(a.best_move, b.best_move);
  EXPECT_LT(b.playouts, a.playouts);
}

TEST(SearchTest, SmartPruningZeroSearchesToTheTarget) {
  SearchParams params;
  params.smart_pruning = 0;
  HashEvaluator evaluator;
  Search search(&evaluator, params);
  SearchLimits limits;
  limits.playouts = 2000;
  EXPECT_EQ(search.Run(Game(), limits).playouts, 2000);
}

// Even values and nine tenths of the prior on the first move, so that a
// search has a clear favourite; the first call after `slow_next` is set
// takes 20 ms (a cold cache, a thread woken late, a machine busy for a
// moment).
class FavouriteEvaluator : public Evaluator {
 public:
  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    if (slow_next.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (int i = 0; i < count; ++i) {
      out[i] = EvalOutput();
      const int n = out[i].num_moves = positions[i].CountMoves();
      for (int m = 0; m < n; ++m) out[i].priors[m] = n == 1 ? 1 : m == 0 ? 0.9f : 0.1f / (n - 1);
      out[i].wdl[1] = 1;
    }
  }
  std::atomic<bool> slow_next{false};
};

// Smart pruning judges a timed search by its rate, and a rate of one slow
// batch is no rate: the search on a reused subtree with a clear favourite
// goes on until a tenth of its budget has passed before it judges. (It
// judged after one playout once, and stopped at once.)
TEST(SearchTest, SmartPruningWaitsForARate) {
  FavouriteEvaluator evaluator;
  SearchParams params;
  Search search(&evaluator, params);
  const Game game;
  SearchLimits limits;
  limits.playouts = 5000;
  limits.early_stop = false;
  const SearchResult kept = search.Run(game, limits);
  std::vector<uint32_t> visits;
  for (const RootChild& c : kept.children) visits.push_back(c.visits);
  std::sort(visits.rbegin(), visits.rend());
  ASSERT_GT(visits[0], visits[1] + 100) << "the kept tree's favourite leads";
  SearchLimits timed;  // on the same position: the whole tree is kept
  timed.seconds = 0.3;
  evaluator.slow_next = true;
  const SearchResult result = search.Run(game, timed);
  EXPECT_GE(result.seconds, 0.1 * timed.seconds);  // however busy the machine
  EXPECT_GT(result.playouts, 10);
}

// Asks its search to stop after a number of calls, from inside Evaluate.
class StoppingEvaluator : public Evaluator {
 public:
  explicit StoppingEvaluator(int calls) : calls_left_(calls) {}
  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    inner_.Evaluate(positions, count, out);
    if (--calls_left_ == 0) search->Stop();
  }
  Search* search = nullptr;

 private:
  UniformEvaluator inner_;
  int calls_left_;
};

TEST(SearchTest, StopEndsATimedSearch) {
  StoppingEvaluator evaluator(50);
  SearchParams params;
  Search search(&evaluator, params);
  evaluator.search = &search;
  SearchLimits limits;
  limits.seconds = 1e6;  // only Stop can end it
  limits.early_stop = false;
  const SearchResult result = search.Run(Game(), limits);
  EXPECT_EQ(result.evaluations, 50);
  EXPECT_TRUE(Game().position().IsLegal(result.best_move));
}

TEST(SearchTest, TheNodeBoundEndsASearch) {
  SearchParams params;
  params.max_tree_nodes = 5000;
  UniformEvaluator evaluator;
  Search search(&evaluator, params);
  SearchLimits limits;
  limits.playouts = 1 << 20;
  const SearchResult result = search.Run(Game(), limits);
  EXPECT_GE(result.tree_size, 5000u);
  EXPECT_LT(result.tree_size, 5000u + 2 * kMaxMoves);
}

TEST(SearchTest, ATimedSearchReturnsALegalMove) {
  SearchParams params;
  params.threads = 2;
  UniformEvaluator evaluator;
  Search search(&evaluator, params);
  for (const Game& game : SomeGames(3, 4)) {
    SearchLimits limits;
    limits.seconds = 0.02;
    EXPECT_TRUE(game.position().IsLegal(search.Run(game, limits).best_move));
  }
}

class ThrowingEvaluator : public Evaluator {
 public:
  void Evaluate(const Position*, int, EvalOutput*) override { throw Error("net file 'x' is truncated"); }
};

TEST(SearchTest, AnEvaluatorErrorReachesTheCallerAndTheSearchRecovers) {
  for (int threads : {1, 3}) {
    ThrowingEvaluator thrower;
    SearchParams params;
    params.threads = threads;
    Search search(&thrower, params);
    EXPECT_THROW(search.Run(Game(), SearchLimits()), Error);
    EXPECT_THROW(search.Run(Game(), SearchLimits()), Error);
  }
}

TEST(SearchTest, BadParametersAreRejected) {
  SearchParams params;
  params.threads = 0;
  UniformEvaluator evaluator;
  EXPECT_THROW(Search(&evaluator, params), Error);
  params = SearchParams();
  params.dirichlet_epsilon = 1.5f;
  EXPECT_THROW(params.Validate(), Error);
  // More playouts in flight than a node can count.
  params = SearchParams();
  params.threads = 1024;
  params.leaves_per_batch = 32;
  EXPECT_THROW(params.Validate(), Error);
  params.leaves_per_batch = 31;
  EXPECT_NO_THROW(params.Validate());
}

TEST(TimeManagerTest, Budgets) {
  SearchParams params;
  params.time_moves_to_go = 20;
  params.move_overhead_seconds = 0.05;
  EXPECT_EQ(MoveTimeBudget(0, 0, 0, params), 0);
  EXPECT_NEAR(MoveTimeBudget(100, 0, 0, params), 100.0 / 20 - 0.05, 1e-9);
  // Byo-yomi alone: most of one move's share.
  EXPECT_NEAR(MoveTimeBudget(0, 10, 5, params), 0.8 * 2 - 0.05, 1e-9);
  EXPECT_NEAR(MoveTimeBudget(0, 3, 0, params), 0.8 * 3 - 0.05, 1e-9);
  // Never more than half the main time left, never below a floor.
  params.time_moves_to_go = 1;
  EXPECT_LE(MoveTimeBudget(10, 0, 0, params), 5.0);
  EXPECT_GT(MoveTimeBudget(0.01, 0, 0, params), 0);
  // An increment is spent as a byo-yomi move is; moves to go share the main time out when fewer.
  params.time_moves_to_go = 20;
  EXPECT_NEAR(MoveTimeBudget(100, 0, 0, params, 2), 100.0 / 20 + 0.8 * 2 - 0.05, 1e-9);
  EXPECT_NEAR(MoveTimeBudget(0, 0, 0, params, 2), 0.8 * 2 - 0.05, 1e-9);
  EXPECT_NEAR(MoveTimeBudget(100, 0, 0, params, 0, 10), 100.0 / 10 - 0.05, 1e-9);
  EXPECT_NEAR(MoveTimeBudget(100, 0, 0, params, 0, 40), 100.0 / 20 - 0.05, 1e-9);
}

TEST(TimeManagerTest, AnUnsureSearchMayTakeAnExtension) {
  SearchParams params;
  EXPECT_EQ(MoveTimeLimit(2, 60, params), 2);  // off by default
  params.time_extension = 1;
  EXPECT_EQ(MoveTimeLimit(2, 60, params), 4);
  EXPECT_EQ(MoveTimeLimit(2, 6, params), 3);  // a quarter of what is left beyond the budget
  EXPECT_EQ(MoveTimeLimit(2, 1, params), 2);  // never below the budget
  EXPECT_EQ(MoveTimeLimit(0, 60, params), 0);
  EXPECT_TRUE(UnsureAtBudget(100, 60));
  EXPECT_TRUE(UnsureAtBudget(100, 50));
  EXPECT_FALSE(UnsureAtBudget(100, 49));
  EXPECT_TRUE(UnsureAtBudget(0, 0));  // too little searched to judge
  EXPECT_TRUE(UnsureAtBudget(15, 0));
  EXPECT_FALSE(UnsureAtBudget(16, 0));
  const float none = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(FallingValue(0.3f, 0.1f, 0.2f));
  EXPECT_TRUE(FallingValue(0.3f, -0.5f, 0.2f));
  EXPECT_FALSE(FallingValue(0.3f, 0.15f, 0.2f));
  EXPECT_FALSE(FallingValue(0.3f, 0.6f, 0.2f));
  EXPECT_FALSE(FallingValue(0.3f, -0.5f, 0));  // off
  EXPECT_FALSE(FallingValue(none, -0.5f, 0.2f));
}

// A search past its budget goes on while its top two moves are close, to
// its visit target here: the budget (a microsecond) has passed after the
// first playout, so without the extension it stops far short of it.
TEST(TimeManagerTest, ASearchGoesOnPastItsBudgetWhileUnsure) {
  UniformEvaluator evaluator;
  SearchParams params;
  params.reuse_tree = false;
  SearchLimits limits;
  limits.seconds = 1e-6;
  limits.playouts = 400;
  limits.early_stop = false;
  Search plain(&evaluator, params);
  EXPECT_LT(plain.Run(Game(), limits).visits, 400u);
  limits.max_seconds = 1000;
  Search extended(&evaluator, params);
  EXPECT_EQ(extended.Run(Game(), limits).visits, 400u);  // the uniform priors keep the top two close
  // Smart pruning, as the engine plays, counts the time to the limit, not
  // to the passed budget (by which no move could catch up any more).
  limits.early_stop = true;
  Search pruning(&evaluator, params);
  EXPECT_GT(pruning.Run(Game(), limits).visits, 300u);
}

// A sure search (nine tenths of the prior on one move) goes on past its
// budget when its value (near 0: even values, a few game ends down the
// favourite's line) has fallen far enough below its side's previous one,
// and not otherwise.
TEST(TimeManagerTest, ASearchGoesOnPastItsBudgetWhenItsValueFalls) {
  FavouriteEvaluator evaluator;
  SearchParams params;
  params.reuse_tree = false;
  params.time_falling_value = 0.2f;
  SearchLimits limits;
  limits.seconds = 1e-6;
  limits.max_seconds = 1000;
  limits.playouts = 400;
  limits.early_stop = false;
  Search search(&evaluator, params);
  EXPECT_LT(search.Run(Game(), limits).visits, 100u);  // sure: stops at the budget
  limits.previous_value = -0.5f;
  EXPECT_LT(search.Run(Game(), limits).visits, 100u);  // risen
  limits.previous_value = 1;
  EXPECT_EQ(search.Run(Game(), limits).visits, 400u);  // fallen
}

}  // namespace
}  // namespace loa
