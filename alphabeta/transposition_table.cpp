#include "alphabeta/transposition_table.h"

#include <algorithm>

namespace loa::ab {

TranspositionTable::TranspositionTable(int megabytes) {
  const size_t limit = size_t(std::max(megabytes, 0)) * 1024 * 1024 / sizeof(Slot);
  while (size_ * 2 <= limit) size_ *= 2;
  slots_.reset(new Slot[size_]);
}

void TranspositionTable::Clear() {
  for (size_t i = 0; i < size_; ++i) {
    slots_[i].key_xor_data.store(0, std::memory_order_relaxed);
    slots_[i].data.store(0, std::memory_order_relaxed);
  }
  age_ = 0;
}

uint64_t TranspositionTable::Pack(const TTEntry& e) {
  return uint64_t(uint16_t(e.score)) | uint64_t(e.move) << 16 | uint64_t(uint16_t(e.depth)) << 32 |
         uint64_t(e.bound) << 48 | uint64_t(e.age) << 56;
}

TTEntry TranspositionTable::Unpack(uint64_t data) {
  TTEntry e;
  e.score = int16_t(uint16_t(data));
  e.move = uint16_t(data >> 16);
  e.depth = int16_t(uint16_t(data >> 32));
  e.bound = Bound((data >> 48) & 3);
  e.age = uint8_t(data >> 56);
  return e;
}

bool TranspositionTable::Probe(uint64_t key, TTEntry& entry) const {
  const Slot& slot = SlotOf(key);
  const uint64_t data = slot.data.load(std::memory_order_relaxed);
  if ((slot.key_xor_data.load(std::memory_order_relaxed) ^ data) != key) return false;
  entry = Unpack(data);
  return entry.bound != Bound::kNone;
}

void TranspositionTable::Store(uint64_t key, int score, Move move, int depth, Bound bound) {
  Slot& slot = SlotOf(key);
  const uint64_t old_data = slot.data.load(std::memory_order_relaxed);
  const bool same_key = (slot.key_xor_data.load(std::memory_order_relaxed) ^ old_data) == key;
  const TTEntry old = Unpack(old_data);
  // Keep a deeper entry of the current search for another position.
  if (!same_key && old.bound != Bound::kNone && old.age == age_ && old.depth > depth) return;
  // Keep the old best move when the new result has none.
  if (move.is_null() && same_key) move = Move::FromRaw(old.move);
  TTEntry e;
  e.score = int16_t(score);
  e.move = move.raw();
  e.depth = int16_t(depth);
  e.bound = bound;
  e.age = age_;
  const uint64_t data = Pack(e);
  slot.data.store(data, std::memory_order_relaxed);
  slot.key_xor_data.store(key ^ data, std::memory_order_relaxed);
}

// A slot holds 0 when free: keys are stored with their lowest bit set.
SearchingNow::SearchingNow() : keys_(new std::atomic<uint64_t>[kBuckets * kWays]) {
  for (size_t i = 0; i < kBuckets * kWays; ++i) keys_[i].store(0, std::memory_order_relaxed);
}

bool SearchingNow::Has(uint64_t key) const {
  key |= 1;
  const std::atomic<uint64_t>* bucket = BucketOf(key);
  for (int w = 0; w < kWays; ++w)
    if (bucket[w].load(std::memory_order_relaxed) == key) return true;
  return false;
}

void SearchingNow::Begin(uint64_t key) {
  key |= 1;
  std::atomic<uint64_t>* bucket = BucketOf(key);
  for (int w = 0; w < kWays; ++w) {
    uint64_t seen = bucket[w].load(std::memory_order_relaxed);
    if (seen == key) return;
    if (seen == 0 && bucket[w].compare_exchange_strong(seen, key, std::memory_order_relaxed)) return;
  }
}

void SearchingNow::End(uint64_t key) {
  key |= 1;
  std::atomic<uint64_t>* bucket = BucketOf(key);
  for (int w = 0; w < kWays; ++w) {
    uint64_t seen = key;
    bucket[w].compare_exchange_strong(seen, 0, std::memory_order_relaxed);
  }
}

}  // namespace loa::ab
