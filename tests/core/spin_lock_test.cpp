#include "core/spin_lock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace loa {
namespace {

TEST(SpinLockTest, KeepsCountsExact) {
  // Four threads add under one lock to a plain counter and a pair that
  // must stay equal: a lock that let two in at once would lose adds.
  SpinLock lock;
  int64_t count = 0, twin = 0;
  bool mismatch = false;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 100000; ++i) {
        std::lock_guard<SpinLock> guard(lock);
        mismatch |= count != twin;
        ++count;
        ++twin;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(count, 400000);
  EXPECT_FALSE(mismatch);
  EXPECT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock());
  lock.unlock();
}

}  // namespace
}  // namespace loa
