#pragma once
// An NN cache in front of any evaluator (lc0's backend-wrapping style):
// outputs keyed by the whole position, bounded in entries, shared by every
// search thread, move and game that holds it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "mcts/evaluator.h"

namespace loa {

// Evaluate is thread-safe when the inner evaluator's is (the cache itself
// locks one of its shards per lookup). Outputs are stored exactly, so a
// search gives the same result with or without the cache.
class CachedEvaluator : public Evaluator {
 public:
  // Caches the outputs of inner (not owned; it must outlive the cache) for at
  // most max_entries positions, about 440 bytes each, memory taken as used;
  // max_entries < 2 caches nothing.
  CachedEvaluator(Evaluator* inner, std::size_t max_entries);
  // The same, owning inner.
  CachedEvaluator(std::unique_ptr<Evaluator> inner, std::size_t max_entries);
  ~CachedEvaluator() override;

  // Answers each position from the cache, or else from one call of the
  // inner evaluator with the positions missing (each once).
  void Evaluate(const Position* positions, int count, EvalOutput* out) override;
  bool PlaysBoardSize(int size) const override { return inner_->PlaysBoardSize(size); }

  // Forgets every entry. Thread-safe.
  void Clear();

  // Returns the entries held now; never above capacity(). Thread-safe.
  std::size_t size() const;
  // Returns the most entries it holds (at most the max_entries asked for).
  std::size_t capacity() const { return capacity_; }
  // Positions answered from the cache and from the inner evaluator.
  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  struct Entry;
  struct Shard;
  Shard& ShardOf(uint64_t hash) const;
  Entry* BucketOf(const Shard& shard, uint64_t hash) const;
  bool Lookup(const Position& pos, EvalOutput* out) const;
  void Insert(const Position& pos, const EvalOutput& eval);

  std::unique_ptr<Evaluator> owned_;
  Evaluator* inner_;
  int num_shards_ = 0;
  std::size_t buckets_per_shard_ = 0;
  std::size_t capacity_ = 0;
  std::unique_ptr<Shard[]> shards_;
  void* table_ = nullptr;  // the shards' entries: one mapping of capacity_ entries
  std::size_t table_bytes_ = 0;
  std::atomic<uint64_t> hits_{0}, misses_{0};
};

}  // namespace loa
