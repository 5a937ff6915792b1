#pragma once
// The replay buffer: a sliding window over the newest self-play samples,
// sampled uniformly, each sample under a random one of the 8 board
// symmetries; whole shards held out for validation. And ShardFeed, which
// loads new shards of a run directory into it.

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/random.h"
#include "net/encoder.h"
#include "net/training_heads.h"
#include "run/config.h"
#include "run/logger.h"
#include "run/run_dir.h"
#include "train/shard.h"

namespace loa::train {

// A batch of training inputs and targets in the layouts the model takes,
// row-major, `size` rows.
struct Batch {
  int size = 0;
  InputFeatures features = InputFeatures::kBasic;  // the input set of planes
  std::vector<float> planes;                       // size x NumInputPlanes(features) x 64
  std::vector<float> policy;                       // size x kPolicySize target probabilities
  std::vector<float> legal_mask;                   // size x kPolicySize: 0 legal, kIllegalLogit otherwise
  std::vector<float> wdl;                          // size x 3 one-hot win, draw, loss
  std::vector<float> moves_left;                   // size: plies left / kMovesLeftScale
  std::vector<float> root_value;                   // size: the search's value, for metrics
  // The training-only heads' targets (size x HeadFloats, in the layout of
  // the head's logits, under the row's symmetry) and their weights (size:
  // 0 where the sample has no such target), by TrainingHead
  // (train/training_targets.h).
  std::array<std::vector<float>, kNumTrainingHeads> head_targets, head_weights;

  // Sizes every vector for n rows.
  void Resize(int n);
  // Floats of one row's planes.
  std::size_t input_size() const { return std::size_t(NumInputPlanes(features)) * kNumSquares; }
};

// Added to the logit of an illegal move: the loss's softmax is over the
// legal moves only, as the evaluator's is.
inline constexpr float kIllegalLogit = -1e9f;

// Writes row `row` of batch for sample s (of shard) under symmetry t.
void FillBatchRow(const Shard& shard, const Sample& s, int t, int row, Batch* batch);

// The two sets a replay buffer holds: the training window and the shards
// held out for validation.
enum class Split { kTrain, kValidation };

// The window. Threads: not thread-safe; the trainer's thread owns it and
// calls every member. Lifetimes: it keeps no reference to what it is given
// (shards are read into it).
class ReplayBuffer {
 public:
  // Batches are encoded with the input set `features` (the net's).
  ReplayBuffer(const run::ReplayConfig& config, uint64_t seed, InputFeatures features = InputFeatures::kBasic);

  // Returns whether the shard named `name` is held out for validation: a
  // hash of the name below the validation share, the same in every process.
  bool IsValidation(const std::string& name) const;

  // Sizes the window for `samples_seen` self-play samples in the run
  // (WindowSize); a smaller window drops the oldest shards at the next Add.
  void SetSamplesSeen(int64_t samples_seen);

  // Adds a shard's samples as the newest, to the training window or to the
  // validation set, and drops the oldest shards beyond the window.
  void Add(const std::string& name, std::shared_ptr<const Shard> shard);

  // Samples in the training window / in the validation set.
  int64_t size() const { return train_.samples; }
  int64_t validation_size() const { return validation_.samples; }
  // Shards in the training window.
  int shards() const { return int(train_.shards.size()); }
  // The most samples the training window / the validation set keeps (a
  // shard more may stay until the rest fill it).
  int64_t capacity(Split split) const { return (split == Split::kValidation ? validation_ : train_).capacity; }

  // Fills batch with n samples drawn uniformly with replacement from the
  // training window or the validation set, each under a random symmetry
  // when the config says so. The set must not be empty.
  void SampleBatch(int n, Split split, Batch* batch);

 private:
  struct Window {
    std::deque<std::shared_ptr<const Shard>> shards;
    std::vector<int64_t> ends;  // cumulative sample counts, one per shard
    int64_t samples = 0;
    int64_t capacity = 0;
    void Add(std::shared_ptr<const Shard> shard);
  };

  run::ReplayConfig config_;
  InputFeatures features_;
  Rng rng_;
  Window train_, validation_;
};

// Watches a run's selfplay folder and loads each new shard into a buffer,
// oldest first. A shard that cannot be read is skipped with a warning
// naming it. Not thread-safe.
class ShardFeed {
 public:
  ShardFeed(const run::RunDir& run, run::Logger& log) : run_(run), log_(log) {}

  // Loads the shards not seen before. On the first call (a start or a
  // resume) only the newest that fit the buffer's window are read; older
  // ones are counted from their headers. Returns the samples added.
  int64_t Poll(ReplayBuffer& buffer);

  // Training samples (not held out) in every shard seen, read or not: the
  // self-play output that the train ratio is measured against.
  int64_t train_samples_seen() const { return train_samples_seen_; }
  // Games and samples in every shard seen, read or not.
  int64_t games_seen() const { return games_seen_; }
  int64_t samples_seen() const { return samples_seen_; }
  // Games in every shard seen, by the self-play process that wrote it (the
  // NAME of its writer NAME-wK): each process's, and so each machine's,
  // share of what the trainer takes.
  const std::map<std::string, int64_t>& games_by_process() const { return games_by_process_; }

 private:
  void Count(const std::string& name, const ShardCounts& counts, const ReplayBuffer& buffer);

  const run::RunDir& run_;
  run::Logger& log_;
  std::set<std::string> seen_;
  int64_t train_samples_seen_ = 0;
  int64_t games_seen_ = 0;
  int64_t samples_seen_ = 0;
  std::map<std::string, int64_t> games_by_process_;
  bool first_ = true;
};

}  // namespace loa::train
