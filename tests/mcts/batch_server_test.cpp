// The batch server: the same outputs as the evaluator behind it, from one
// thread and from many; callers that find every slot busy are gathered into
// one batch; an evaluator's error reaches each caller of its batch.

#include "mcts/batch_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::HashEvaluator;

// The positions of random games with a fixed seed.
std::vector<Position> SomePositions(int count, uint64_t seed) {
  std::vector<Position> positions;
  for (const Game& game : testing::SomeGames(count, seed)) positions.push_back(game.position());
  return positions;
}

void ExpectSameOutputs(const EvalOutput& a, const EvalOutput& b) {
  ASSERT_EQ(a.num_moves, b.num_moves);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a.wdl[k], b.wdl[k]);
  for (int m = 0; m < a.num_moves; ++m) EXPECT_EQ(a.priors[m], b.priors[m]);
}

// The inner evaluator's outputs for positions, one call each.
std::vector<EvalOutput> Expected(const std::vector<Position>& positions) {
  HashEvaluator direct;
  std::vector<EvalOutput> out(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) direct.Evaluate(&positions[i], 1, &out[i]);
  return out;
}

TEST(BatchServerTest, ServesTheInnerEvaluatorsOutputsAndSplitsLargeCalls) {
  const std::vector<Position> positions = SomePositions(300, 1);
  const std::vector<EvalOutput> expected = Expected(positions);
  auto inner = std::make_unique<HashEvaluator>();
  const HashEvaluator* seen = inner.get();
  ServedEvaluator served(std::move(inner), 2, 64, 0);
  std::vector<EvalOutput> out(positions.size());
  served.Evaluate(positions.data(), 1, out.data());
  served.Evaluate(positions.data() + 1, 299, out.data() + 1);
  for (std::size_t i = 0; i < positions.size(); ++i) ExpectSameOutputs(out[i], expected[i]);
  EXPECT_EQ(seen->calls(), 1 + 5) << "299 positions in batches of at most 64";
  long batches = 0, total = 0;
  served.server().Counters(&batches, &total);
  EXPECT_EQ(batches, 6);
  EXPECT_EQ(total, 300);
}

TEST(BatchServerTest, ManyThreadsGetTheirOwnOutputs) {
  const std::vector<Position> positions = SomePositions(2000, 2);
  const std::vector<EvalOutput> expected = Expected(positions);
  for (int wait_us : {0, 200}) {
    ServedEvaluator served(std::make_unique<HashEvaluator>(), 2, 32, wait_us);
    std::vector<EvalOutput> out(positions.size());
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        // Thread t evaluates positions t, t + 8, ... in calls of 1 to 7.
        std::vector<Position> mine;
        std::vector<int> index;
        for (std::size_t i = std::size_t(t); i < positions.size(); i += 8) {
          mine.push_back(positions[i]);
          index.push_back(int(i));
        }
        std::vector<EvalOutput> got(mine.size());
        for (std::size_t i = 0, n = 1; i < mine.size(); i += n, n = n % 7 + 1) {
          const int count = int(std::min(n, mine.size() - i));
          served.Evaluate(mine.data() + i, count, got.data() + i);
        }
        for (std::size_t i = 0; i < mine.size(); ++i) out[std::size_t(index[i])] = got[i];
      });
    }
    for (std::thread& t : threads) t.join();
    for (std::size_t i = 0; i < positions.size(); ++i) ExpectSameOutputs(out[i], expected[i]);
    long batches = 0, total = 0;
    served.server().Counters(&batches, &total);
    EXPECT_EQ(total, 2000);
    EXPECT_GT(batches, 0);
  }
}

// Holds its first call until released; counts the positions of each call.
class GateEvaluator : public Evaluator {
 public:
  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      counts_.push_back(count);
      if (counts_.size() == 1) {
        entered_ = true;
        changed_.notify_all();
        changed_.wait(lock, [&] { return released_; });
      }
    }
    inner_.Evaluate(positions, count, out);
  }
  void AwaitFirstCall() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  std::vector<int> counts() {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

 private:
  HashEvaluator inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool entered_ = false, released_ = false;
  std::vector<int> counts_;
};

TEST(BatchServerTest, CallersThatFindEverySlotBusyShareTheNextBatch) {
  const std::vector<Position> positions = SomePositions(10, 3);
  const std::vector<EvalOutput> expected = Expected(positions);
  auto inner = std::make_unique<GateEvaluator>();
  GateEvaluator* gate = inner.get();
  ServedEvaluator served(std::move(inner), 1, 64, 0);
  std::vector<EvalOutput> out(positions.size());
  std::thread first([&] { served.Evaluate(positions.data(), 1, out.data()); });
  gate->AwaitFirstCall();  // the one slot is busy
  std::vector<std::thread> others;
  for (int t = 0; t < 3; ++t)  // 3 calls of 3 positions: 1-3, 4-6, 7-9
    others.emplace_back([&, t] { served.Evaluate(positions.data() + 1 + 3 * t, 3, out.data() + 1 + 3 * t); });
  while (served.server().queued() < 3) std::this_thread::yield();
  gate->Release();
  first.join();
  for (std::thread& t : others) t.join();
  EXPECT_EQ(gate->counts(), (std::vector<int>{1, 9}));
  for (std::size_t i = 0; i < positions.size(); ++i) ExpectSameOutputs(out[i], expected[i]);
}

class ThrowingEvaluator : public Evaluator {
 public:
  void Evaluate(const Position*, int, EvalOutput*) override {
    if (throws) throw Error("net file 'x' is truncated");
  }
  std::atomic<bool> throws{true};
};

TEST(BatchServerTest, AnEvaluatorErrorReachesItsCallersAndTheServerGoesOn) {
  auto inner = std::make_unique<ThrowingEvaluator>();
  ThrowingEvaluator* thrower = inner.get();
  ServedEvaluator served(std::move(inner), 2, 8, 0);
  const std::vector<Position> positions = SomePositions(4, 4);
  std::vector<EvalOutput> out(positions.size());
  EXPECT_THROW(served.Evaluate(positions.data(), 4, out.data()), Error);
  thrower->throws = false;
  EXPECT_NO_THROW(served.Evaluate(positions.data(), 4, out.data()));
}

TEST(BatchServerTest, BadSettingsAreRejected) {
  EXPECT_THROW(BatchServer(0, 8, 0, nullptr), Error);
  EXPECT_THROW(BatchServer(1, 0, 0, nullptr), Error);
  EXPECT_THROW(BatchServer(1, 8, -1, nullptr), Error);
}

}  // namespace
}  // namespace loa
