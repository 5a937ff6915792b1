#include "mcts/cached_evaluator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace loa {

namespace {

// Shards, each with its own lock: enough that search threads rarely meet.
constexpr int kMaxShards = 64;
// Entries per bucket; a new entry replaces the older of a full bucket.
constexpr int kWays = 2;

}  // namespace

// Trivial, so that a table of zero pages is a table of empty entries.
struct CachedEvaluator::Entry {
  Bitboard black, white;
  uint64_t hash;
  uint64_t stamp;  // 0: empty; else the shard's insertion count
  int32_t num_moves;
  float wdl[3];
  float moves_left;
  float priors[kMaxMoves];

  bool Holds(const Position& pos) const {
    return stamp != 0 && hash == pos.hash() && black == pos.pieces(kBlack) && white == pos.pieces(kWhite);
  }
};

struct alignas(64) CachedEvaluator::Shard {
  mutable std::mutex mutex;
  Entry* entries = nullptr;  // buckets_per_shard_ * kWays, in the table's mapping
  uint64_t stamp = 0;
  std::size_t size = 0;
};

CachedEvaluator::CachedEvaluator(std::unique_ptr<Evaluator> inner, std::size_t max_entries)
    : CachedEvaluator(inner.get(), max_entries) {
  owned_ = std::move(inner);
}

CachedEvaluator::CachedEvaluator(Evaluator* inner, std::size_t max_entries) : inner_(inner) {
  if (max_entries < kWays) return;
  num_shards_ = 1;
  while (num_shards_ * 2 <= kMaxShards && std::size_t(num_shards_) * 2 * kWays <= max_entries) num_shards_ *= 2;
  buckets_per_shard_ = max_entries / (std::size_t(num_shards_) * kWays);
  capacity_ = buckets_per_shard_ * kWays * num_shards_;
  shards_.reset(new Shard[num_shards_]);
  // One anonymous mapping of zero pages, each made resident only when an
  // entry on it is first written: a cache costs what it holds, whatever
  // malloc's thresholds are (calloc from the heap writes every page).
  table_bytes_ = capacity_ * sizeof(Entry);
  table_ = mmap(nullptr, table_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (table_ == MAP_FAILED) {
    table_ = nullptr;
    throw std::bad_alloc();
  }
  for (int s = 0; s < num_shards_; ++s)
    shards_[s].entries = static_cast<Entry*>(table_) + std::size_t(s) * buckets_per_shard_ * kWays;
}

CachedEvaluator::~CachedEvaluator() {
  if (table_) munmap(table_, table_bytes_);
}

CachedEvaluator::Shard& CachedEvaluator::ShardOf(uint64_t hash) const {
  return shards_[(hash >> 1) & uint64_t(num_shards_ - 1)];  // bit 0 is the side to move
}

CachedEvaluator::Entry* CachedEvaluator::BucketOf(const Shard& shard, uint64_t hash) const {
  return shard.entries + ((hash >> 7) % buckets_per_shard_) * kWays;
}

bool CachedEvaluator::Lookup(const Position& pos, EvalOutput* out) const {
  if (capacity_ == 0) return false;
  Shard& shard = ShardOf(pos.hash());
  std::lock_guard<std::mutex> lock(shard.mutex);
  const Entry* bucket = BucketOf(shard, pos.hash());
  for (int w = 0; w < kWays; ++w) {
    const Entry& e = bucket[w];
    if (!e.Holds(pos)) continue;
    *out = EvalOutput();
    std::memcpy(out->wdl, e.wdl, sizeof e.wdl);
    out->moves_left = e.moves_left;
    out->num_moves = e.num_moves;
    std::memcpy(out->priors, e.priors, sizeof(float) * e.num_moves);
    return true;
  }
  return false;
}

void CachedEvaluator::Insert(const Position& pos, const EvalOutput& eval) {
  if (capacity_ == 0) return;
  Shard& shard = ShardOf(pos.hash());
  std::lock_guard<std::mutex> lock(shard.mutex);
  Entry* bucket = BucketOf(shard, pos.hash());
  Entry* slot = nullptr;
  for (int w = 0; w < kWays && !slot; ++w)
    if (bucket[w].Holds(pos)) slot = &bucket[w];
  for (int w = 0; w < kWays && !slot; ++w)
    if (bucket[w].stamp == 0) {
      slot = &bucket[w];
      ++shard.size;
    }
  if (!slot) {
    slot = &bucket[0];
    for (int w = 1; w < kWays; ++w)
      if (bucket[w].stamp < slot->stamp) slot = &bucket[w];
  }
  slot->black = pos.pieces(kBlack);
  slot->white = pos.pieces(kWhite);
  slot->hash = pos.hash();
  slot->stamp = ++shard.stamp;
  slot->num_moves = eval.num_moves;
  std::memcpy(slot->wdl, eval.wdl, sizeof slot->wdl);
  slot->moves_left = eval.moves_left;
  std::memcpy(slot->priors, eval.priors, sizeof(float) * eval.num_moves);
}

void CachedEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  // For each position: -1 when answered from the cache, else its index among
  // the distinct missing positions.
  std::vector<int> miss_of(count, -1);
  std::vector<Position> missing;
  // Repeats among the missing (many self-play games at one opening): an
  // open-addressing table of indices into `missing`, keyed by hash.
  size_t table_size = 16;
  while (table_size < 2 * size_t(count)) table_size *= 2;
  std::vector<int> table(table_size, -1);
  for (int i = 0; i < count; ++i) {
    if (Lookup(positions[i], &out[i])) continue;
    size_t slot = (positions[i].hash() >> 1) & (table_size - 1);
    while (table[slot] >= 0 && !(missing[table[slot]] == positions[i])) slot = (slot + 1) & (table_size - 1);
    if (table[slot] < 0) {
      table[slot] = int(missing.size());
      missing.push_back(positions[i]);
    }
    miss_of[i] = table[slot];
  }
  hits_.fetch_add(count - missing.size(), std::memory_order_relaxed);
  misses_.fetch_add(missing.size(), std::memory_order_relaxed);
  if (missing.empty()) return;
  if (int(missing.size()) == count) {  // nothing cached, no repeats: no copies
    inner_->Evaluate(positions, count, out);
    for (int i = 0; i < count; ++i) Insert(positions[i], out[i]);
    return;
  }
  std::vector<EvalOutput> fresh(missing.size());
  inner_->Evaluate(missing.data(), int(missing.size()), fresh.data());
  for (size_t m = 0; m < missing.size(); ++m) Insert(missing[m], fresh[m]);
  for (int i = 0; i < count; ++i)
    if (miss_of[i] >= 0) out[i] = fresh[miss_of[i]];
}

void CachedEvaluator::Clear() {
  if (!table_) return;
  // Every shard's lock, then the pages handed back: they read as zeros
  // again (empty entries) and are resident only once written anew.
  std::vector<std::unique_lock<std::mutex>> locks;
  for (int s = 0; s < num_shards_; ++s) locks.emplace_back(shards_[s].mutex);
  if (madvise(table_, table_bytes_, MADV_DONTNEED) != 0)
    std::memset(table_, 0, table_bytes_);  // not expected: the mapping is ours
  for (int s = 0; s < num_shards_; ++s) shards_[s].size = 0;
}

std::size_t CachedEvaluator::size() const {
  std::size_t total = 0;
  for (int s = 0; s < num_shards_; ++s) {
    std::lock_guard<std::mutex> lock(shards_[s].mutex);
    total += shards_[s].size;
  }
  return total;
}

}  // namespace loa
