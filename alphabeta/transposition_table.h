#pragma once
// The transposition table of the alpha-beta search: one entry per slot,
// keyed by the full Zobrist hash, replaced by depth with aging. Shared by the
// threads of a Lazy SMP search without locks: each slot is two 64-bit words,
// the data and the key XOR the data (Hyatt and Mann's lockless hashing), so
// a slot torn by two writers reads as a miss, never as another key's data.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/move.h"

namespace loa::ab {

// What a stored score says of the true value.
enum class Bound : uint8_t { kNone, kUpper, kLower, kExact };

// One slot's contents as a probe returns them (a copy: another thread may
// overwrite the slot meanwhile). depth is in the search's depth units.
struct TTEntry {
  int16_t score = 0;
  uint16_t move = 0;  // Move::raw()
  int16_t depth = 0;
  Bound bound = Bound::kNone;
  uint8_t age = 0;
};

// A fixed-size table. Probe, Store and Prefetch may be called from several
// threads at once; Clear and NewSearch only while no search runs.
class TranspositionTable {
 public:
  // A table of at most `megabytes` MiB (a power of two number of slots, at least one).
  explicit TranspositionTable(int megabytes);

  // Empties every slot (a new game: the search is then reproducible).
  void Clear();

  // Marks later stores as newer than everything stored so far.
  void NewSearch() { age_ = uint8_t((age_ + 1) & 63); }

  // Sets entry to the contents stored for key and returns true, or returns
  // false when the slot holds another key or nothing.
  bool Probe(uint64_t key, TTEntry& entry) const;

  // Stores a result unless the slot holds a deeper result of this search.
  void Store(uint64_t key, int score, Move move, int depth, Bound bound);

  // Returns the number of slots.
  size_t size() const { return size_; }

 private:
  struct Slot {
    std::atomic<uint64_t> key_xor_data{0};
    std::atomic<uint64_t> data{0};
  };
  static uint64_t Pack(const TTEntry& e);
  static TTEntry Unpack(uint64_t data);
  Slot& SlotOf(uint64_t key) const { return slots_[size_t(key >> 1) & (size_ - 1)]; }

  std::unique_ptr<Slot[]> slots_;
  size_t size_ = 1;
  uint8_t age_ = 0;
};

// The positions some thread is searching now, for simplified ABDADA
// (Kerrigan): a thread that meets a move whose position another thread is
// searching puts it off to the end of its move list, so that two threads
// split a node's moves between them instead of searching the same one. A
// fixed set of buckets of a few keys; a lost or stale key only costs a
// thread a move searched twice or put off once. Every member may be called
// from several threads at once.
class SearchingNow {
 public:
  SearchingNow();

  // Returns whether some thread has begun key and not yet ended it.
  bool Has(uint64_t key) const;
  // Marks key as being searched, unless its bucket is full of others'.
  void Begin(uint64_t key);
  // Unmarks key.
  void End(uint64_t key);

 private:
  static constexpr int kWays = 4;
  static constexpr int kBucketBits = 14;
  static constexpr size_t kBuckets = size_t{1} << kBucketBits;
  // By the key's high bits: its lowest is always set, and the transposition
  // table picks its slot by the low ones.
  std::atomic<uint64_t>* BucketOf(uint64_t key) const { return &keys_[size_t(key >> (64 - kBucketBits)) * kWays]; }

  std::unique_ptr<std::atomic<uint64_t>[]> keys_;
};

}  // namespace loa::ab
