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

class SpinLock {
 public:
  void lock() {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire);) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins < kSpinsBeforeYield) {
          Pause();
        } else {
          // The holder may have lost its core: let it have ours.
          std::this_thread::yield();
          spins = 0;
        }
      }
    }
  }
  bool try_lock() {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 256;
  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
  std::atomic<bool> locked_{false};
};

}  // namespace loa
