#include "train/replay_buffer.h"

#include <algorithm>
#include <cassert>

#include "core/error.h"
#include "core/hash.h"
#include "net/encoder.h"
#include "net/symmetry.h"
#include "train/training_targets.h"

namespace loa::train {
namespace {

int64_t ValidationCapacity(int64_t window, double share) {
  return share <= 0 ? 0 : std::max<int64_t>(1, int64_t(double(window) * share));
}

}  // namespace

void Batch::Resize(int n) {
  size = n;
  planes.assign(size_t(n) * input_size(), 0.0f);
  policy.assign(size_t(n) * kPolicySize, 0.0f);
  legal_mask.assign(size_t(n) * kPolicySize, kIllegalLogit);
  wdl.assign(size_t(n) * 3, 0.0f);
  moves_left.assign(size_t(n), 0.0f);
  root_value.assign(size_t(n), 0.0f);
  for (int h = 0; h < kNumTrainingHeads; ++h) {
    head_targets[h].assign(size_t(n) * HeadFloats(kTrainingHeads[h]), 0.0f);
    head_weights[h].assign(size_t(n), 0.0f);
  }
}

void FillBatchRow(const Shard& shard, const Sample& s, int t, int row, Batch* batch) {
  assert(row < batch->size);
  const Position pos = TransformPosition(t, s.position());
  EncodePosition(pos, &batch->planes[size_t(row) * batch->input_size()], batch->features);

  float* mask = &batch->legal_mask[size_t(row) * kPolicySize];
  std::fill(mask, mask + kPolicySize, kIllegalLogit);
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves)
    if (!m.is_pass()) mask[m.PolicyIndex()] = 0.0f;

  float* policy = &batch->policy[size_t(row) * kPolicySize];
  std::fill(policy, policy + kPolicySize, 0.0f);
  float total = 0;
  for (int i = 0; i < s.num_policy; ++i) total += shard.policy[s.policy_offset + i].prob;
  for (int i = 0; i < s.num_policy; ++i) {
    const PolicyEntry& e = shard.policy[s.policy_offset + i];
    policy[TransformPolicyIndex(t, e.index, pos.size())] = float(e.prob) / total;
  }

  float* wdl = &batch->wdl[size_t(row) * 3];
  wdl[0] = s.outcome > 0, wdl[1] = s.outcome == 0, wdl[2] = s.outcome < 0;
  batch->moves_left[row] = float(s.plies_left) / kMovesLeftScale;
  // A proof is exact: the search's value does not blur it (train.value_q_weight).
  batch->root_value[row] = (s.flags & kProven) ? float(s.outcome) : s.root_value;

  for (int h = 0; h < kNumTrainingHeads; ++h) {
    const size_t floats = size_t(HeadFloats(kTrainingHeads[h]));
    float* target = &batch->head_targets[h][size_t(row) * floats];
    std::fill(target, target + floats, 0.0f);
    batch->head_weights[h][row] = TrainingTargets()[h].fill({shard, s, t, pos, policy}, target);
  }
}

void ReplayBuffer::Window::Add(std::shared_ptr<const Shard> shard) {
  samples += int64_t(shard->samples.size());
  shards.push_back(std::move(shard));
  // Drop the oldest shards while the rest still fill the window.
  while (shards.size() > 1 && samples - int64_t(shards.front()->samples.size()) >= capacity) {
    samples -= int64_t(shards.front()->samples.size());
    shards.pop_front();
  }
  ends.clear();
  int64_t end = 0;
  for (const auto& s : shards) ends.push_back(end += int64_t(s->samples.size()));
}

ReplayBuffer::ReplayBuffer(const run::ReplayConfig& config, uint64_t seed, InputFeatures features)
    : config_(config), features_(features), rng_(seed) {
  SetSamplesSeen(0);
}

void ReplayBuffer::SetSamplesSeen(int64_t samples_seen) {
  train_.capacity = run::WindowSize(config_, samples_seen);
  validation_.capacity = ValidationCapacity(train_.capacity, config_.validation_share);
}

bool ReplayBuffer::IsValidation(const std::string& name) const {
  return double(Mix(Fnv1a64(name)) >> 11) * 0x1.0p-53 < config_.validation_share;
}

void ReplayBuffer::Add(const std::string& name, std::shared_ptr<const Shard> shard) {
  if (shard->samples.empty()) return;
  (IsValidation(name) ? validation_ : train_).Add(std::move(shard));
}

void ReplayBuffer::SampleBatch(int n, Split split, Batch* batch) {
  const Window& w = split == Split::kValidation ? validation_ : train_;
  assert(w.samples > 0);
  batch->features = features_;
  batch->Resize(n);
  for (int row = 0; row < n; ++row) {
    const int64_t k = int64_t(rng_.Next() % uint64_t(w.samples));
    const size_t shard = size_t(std::upper_bound(w.ends.begin(), w.ends.end(), k) - w.ends.begin());
    const int64_t begin = shard == 0 ? 0 : w.ends[shard - 1];
    const Shard& s = *w.shards[shard];
    const int t = config_.symmetries ? int(rng_.Next() % kNumSymmetries) : 0;
    FillBatchRow(s, s.samples[size_t(k - begin)], t, row, batch);
  }
}

int64_t ShardFeed::Poll(ReplayBuffer& buffer) {
  std::vector<run::ShardFile> fresh;
  for (run::ShardFile& f : run_.ListShards())
    if (!seen_.count(f.name)) fresh.push_back(std::move(f));
  // On the first call, read only the newest shards that fill the window and
  // the validation set; count the older ones from their headers. The window
  // is sized for every shard there is before any is added.
  std::vector<bool> read(fresh.size(), true);
  if (first_) {
    first_ = false;
    std::vector<ShardCounts> counts(fresh.size());
    std::vector<bool> readable(fresh.size(), false);
    int64_t total = samples_seen_;
    for (size_t i = 0; i < fresh.size(); ++i) {
      try {
        counts[i] = ReadShardCounts(fresh[i].path);
        readable[i] = true;
        total += counts[i].samples;
      } catch (const loa::Error& e) {
        // ReadShard below skips it and says why
      }
    }
    buffer.SetSamplesSeen(total);
    int64_t left[2] = {buffer.capacity(Split::kTrain), buffer.capacity(Split::kValidation)};
    for (size_t i = fresh.size(); i-- > 0;) {
      if (!readable[i]) continue;
      const std::string& name = fresh[i].name;
      const bool validation = buffer.IsValidation(name);
      if (left[validation] > 0) {
        left[validation] -= counts[i].samples;
        continue;
      }
      read[i] = false;
      seen_.insert(name);
      Count(name, counts[i], buffer);
    }
  }
  std::vector<std::pair<std::string, std::shared_ptr<const Shard>>> loaded;
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (!read[i]) continue;
    const std::string& name = fresh[i].name;
    seen_.insert(name);
    try {
      auto shard = std::make_shared<const Shard>(ReadShard(fresh[i].path));
      Count(name, {shard->games, int64_t(shard->samples.size())}, buffer);
      loaded.emplace_back(name, std::move(shard));
    } catch (const loa::Error& e) {
      log_.Warn(std::string("skipping replay shard: ") + e.what());
    }
  }
  buffer.SetSamplesSeen(samples_seen_);
  int64_t added = 0;
  for (auto& [name, shard] : loaded) {
    added += int64_t(shard->samples.size());
    buffer.Add(name, std::move(shard));
  }
  return added;
}

void ShardFeed::Count(const std::string& name, const ShardCounts& counts, const ReplayBuffer& buffer) {
  games_seen_ += counts.games;
  samples_seen_ += counts.samples;
  const std::optional<run::ShardName> shard = run::ShardOfFile(name);
  const std::optional<std::string> process = shard ? run::ProcessOfWriter(shard->writer) : std::nullopt;
  games_by_process_[process ? *process : name] += counts.games;
  if (!buffer.IsValidation(name)) train_samples_seen_ += counts.samples;
}

}  // namespace loa::train
