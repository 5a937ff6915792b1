// The NN cache: the inner evaluator's outputs exactly, each missing position
// asked once, a bounded size, and concurrent use.

#include "mcts/cached_evaluator.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "core/random_play.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::HashEvaluator;

void ExpectSameOutput(const EvalOutput& a, const EvalOutput& b) {
  ASSERT_EQ(a.num_moves, b.num_moves);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a.wdl[k], b.wdl[k]);
  EXPECT_EQ(a.moves_left, b.moves_left);
  for (int m = 0; m < a.num_moves; ++m) EXPECT_EQ(a.priors[m], b.priors[m]);
}

TEST(CachedEvaluatorTest, AnswersExactlyAsTheInnerEvaluator) {
  HashEvaluator reference, inner;
  CachedEvaluator cache(&inner, 1 << 16);
  std::vector<Position> positions = RandomPositions(200, 1, false, 40);
  // Repeats inside one batch, and across batches.
  positions.insert(positions.end(), positions.begin(), positions.begin() + 50);
  int distinct = 0;
  for (size_t i = 0; i < positions.size(); ++i)
    distinct += std::find(positions.begin(), positions.begin() + i, positions[i]) == positions.begin() + i;
  for (int round = 0; round < 2; ++round) {
    std::vector<EvalOutput> cached(positions.size()), expected(positions.size());
    cache.Evaluate(positions.data(), int(positions.size()), cached.data());
    reference.Evaluate(positions.data(), int(positions.size()), expected.data());
    for (size_t i = 0; i < positions.size(); ++i) ExpectSameOutput(cached[i], expected[i]);
  }
  EXPECT_EQ(inner.positions(), distinct) << "each distinct position is asked once";
  EXPECT_EQ(inner.calls(), 1);
  EXPECT_EQ(cache.misses(), uint64_t(distinct));
  EXPECT_EQ(cache.hits(), 2 * positions.size() - distinct);
  EXPECT_EQ(cache.size(), size_t(distinct));
}

TEST(CachedEvaluatorTest, SizeStaysWithinTheBound) {
  for (size_t max_entries : {size_t{2}, size_t{10}, size_t{100}, size_t{1000}}) {
    HashEvaluator inner;
    CachedEvaluator cache(&inner, max_entries);
    EXPECT_LE(cache.capacity(), max_entries);
    EXPECT_GT(cache.capacity(), 0u);
    const std::vector<Position> positions = RandomPositions(3000, 2, false, 40);
    std::vector<EvalOutput> out(positions.size());
    for (size_t i = 0; i < positions.size(); i += 100) cache.Evaluate(&positions[i], 100, &out[i]);
    EXPECT_LE(cache.size(), cache.capacity());
    EXPECT_GT(cache.size(), 0u);
    // Evicted or not, answers stay right.
    HashEvaluator reference;
    std::vector<EvalOutput> again(positions.size()), expected(positions.size());
    cache.Evaluate(positions.data(), int(positions.size()), again.data());
    reference.Evaluate(positions.data(), int(positions.size()), expected.data());
    for (size_t i = 0; i < positions.size(); ++i) ExpectSameOutput(again[i], expected[i]);
  }
}

TEST(CachedEvaluatorTest, ZeroEntriesPassesThrough) {
  HashEvaluator inner;
  CachedEvaluator cache(&inner, 0);
  const std::vector<Position> positions = RandomPositions(10, 3, false, 40);
  std::vector<EvalOutput> out(positions.size());
  cache.Evaluate(positions.data(), 10, out.data());
  cache.Evaluate(positions.data(), 10, out.data());
  EXPECT_EQ(inner.positions(), 20);
  EXPECT_EQ(cache.size(), 0u);
}

// This process's resident memory, in bytes (/proc/self/statm).
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * int64_t(sysconf(_SC_PAGESIZE));
}

TEST(CachedEvaluatorTest, TheTableIsResidentOnlyAsItIsUsed) {
  // As after glibc raised its mmap threshold: a calloc of this size would
  // come from the heap and write every page.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  const int64_t before = ResidentBytes();
  CachedEvaluator cache(std::make_unique<HashEvaluator>(), 1 << 18);  // 115 MB of table
  const std::vector<Position> positions = RandomPositions(100, 5, false, 40);
  std::vector<EvalOutput> out(positions.size());
  cache.Evaluate(positions.data(), int(positions.size()), out.data());
  EXPECT_LT(ResidentBytes() - before, int64_t(16) << 20);
  const std::size_t held = cache.size();
  EXPECT_GT(held, 0u);
  cache.Clear();  // hands the pages back rather than writing zeros on all of them
  EXPECT_LT(ResidentBytes() - before, int64_t(16) << 20);
  EXPECT_EQ(cache.size(), 0u);
  cache.Evaluate(positions.data(), int(positions.size()), out.data());
  EXPECT_EQ(cache.size(), held);  // empty entries after the clear, and usable
}

TEST(CachedEvaluatorTest, ClearForgets) {
  CachedEvaluator cache(std::make_unique<HashEvaluator>(), 64);
  const std::vector<Position> positions = RandomPositions(10, 4, false, 40);
  std::vector<EvalOutput> out(positions.size());
  cache.Evaluate(positions.data(), 10, out.data());
  EXPECT_GT(cache.size(), 0u);
  cache.Clear();
  EXPECT_EQ(cache.size(), 0u);
}

TEST(CachedEvaluatorTest, ThreadsShareOneCache) {
  HashEvaluator inner, reference;
  CachedEvaluator cache(&inner, 256);
  const std::vector<Position> positions = RandomPositions(400, 5, false, 40);
  std::vector<EvalOutput> expected(positions.size());
  reference.Evaluate(positions.data(), int(positions.size()), expected.data());
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<EvalOutput> out(8);
      for (int round = 0; round < 20; ++round) {
        const size_t first = size_t((t * 37 + round * 8) % (positions.size() - 8));
        cache.Evaluate(&positions[first], 8, out.data());
        for (int i = 0; i < 8; ++i)
          mismatches[t] += out[i].num_moves != expected[first + i].num_moves ||
                           out[i].wdl[0] != expected[first + i].wdl[0] ||
                           out[i].priors[0] != expected[first + i].priors[0];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
  EXPECT_LE(cache.size(), cache.capacity());
}

}  // namespace
}  // namespace loa
