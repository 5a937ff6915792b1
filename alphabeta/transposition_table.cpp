#include "alphabeta/transposition_table.h"

#include <algorithm>

namespace loa::ab {

TranspositionTable::TranspositionTable(int megabytes) {
  size_t count = 1;
  const size_t limit = size_t(std::max(megabytes, 0)) * 1024 * 1024 / sizeof(TTEntry);
  while (count * 2 <= limit) count *= 2;
  entries_.resize(count);
}

void TranspositionTable::Clear() {
  std::fill(entries_.begin(), entries_.end(), TTEntry());
  age_ = 0;
}

void TranspositionTable::Store(uint64_t key, int score, Move move, int depth, Bound bound) {
  TTEntry& e = entries_[Index(key)];
  // Keep a deeper entry of the current search for another position.
  if (e.key != key && e.age() == age_ && e.depth > depth) return;
  // Keep the old best move when the new result has none.
  if (move.is_null() && e.key == key) move = Move::FromRaw(e.move);
  e.key = key;
  e.score = score;
  e.move = move.raw();
  e.depth = int8_t(depth);
  e.bound_and_age = uint8_t(int(bound) | age_ << 2);
}

}  // namespace loa::ab
