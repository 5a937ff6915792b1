#pragma once
// A lock for critical sections of a few instructions that threads meet on
// often (the search tree's statistics, a free list): a waiter spins on a
// read, with the processor's pause hint, and yields its core only after a
// while. A std::mutex puts a waiter to sleep in the kernel at once, which
// costs far more than such a section (lc0's SpinMutex, Stockfish's
// spinlocks of old). A BasicLockable: use it with std::lock_guard.

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace loa {

// The waiting of a spin lock: the processor's pause hint, and now and then
// the core given up (the holder may have lost its own).
class SpinBackoff {
 public:
  void Wait() {
    if (++spins_ < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    } else {
      std::this_thread::yield();
      spins_ = 0;
    }
  }

 private:
  static constexpr int kSpinsBeforeYield = 256;
  int spins_ = 0;
};

class SpinLock {
 public:
  void lock() {
    SpinBackoff backoff;
    while (locked_.exchange(true, std::memory_order_acquire))
      while (locked_.load(std::memory_order_relaxed)) backoff.Wait();
  }
  bool try_lock() {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace loa
