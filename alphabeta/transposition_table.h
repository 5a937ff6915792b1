#pragma once
// The transposition table of the alpha-beta search: one entry per slot,
// keyed by the full Zobrist hash, replaced by depth with aging.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/move.h"

namespace loa::ab {

// What a stored score says of the true value.
enum class Bound : uint8_t { kNone, kUpper, kLower, kExact };

// One slot: 16 bytes.
struct TTEntry {
  uint64_t key = 0;
  int32_t score = 0;
  uint16_t move = 0;  // Move::raw()
  int8_t depth = 0;
  uint8_t bound_and_age = 0;  // bound in the low 2 bits, age above
  Bound bound() const { return Bound(bound_and_age & 3); }
  uint8_t age() const { return bound_and_age >> 2; }
};

// A fixed-size table. Not thread-safe: one per searcher.
class TranspositionTable {
 public:
  // A table of at most `megabytes` MiB (a power of two number of entries, at least one).
  explicit TranspositionTable(int megabytes);

  // Empties every slot (a new game: the search is then reproducible).
  void Clear();

  // Marks later stores as newer than everything stored so far.
  void NewSearch() { age_ = (age_ + 1) & 63; }

  // Returns the entry of key, or nullptr when the slot holds another key.
  const TTEntry* Probe(uint64_t key) const {
    const TTEntry& e = entries_[Index(key)];
    return e.key == key && e.bound() != Bound::kNone ? &e : nullptr;
  }

  // Stores a result unless the slot holds a deeper result of this search.
  void Store(uint64_t key, int score, Move move, int depth, Bound bound);

  // Returns the number of slots.
  size_t size() const { return entries_.size(); }

 private:
  size_t Index(uint64_t key) const { return size_t(key >> 1) & (entries_.size() - 1); }

  std::vector<TTEntry> entries_;
  uint8_t age_ = 0;
};

}  // namespace loa::ab
