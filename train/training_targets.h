#pragma once
// The targets and losses of the training-only heads (net/training_heads.h
// has their shapes): one row each, by TrainingHead. The replay buffer fills
// each row's target for every batch row, the losses add each head the net
// has (docs/DESIGN.md, "Where a change goes").

#include <array>

#include <torch/torch.h>

#include "core/position.h"
#include "net/training_heads.h"
#include "train/shard.h"

namespace loa::train {

// What a target is made of: a sample of its shard, seen under the batch
// row's symmetry.
struct TargetSource {
  const Shard& shard;
  const Sample& sample;
  int symmetry;              // net/symmetry.h
  const Position& position;  // the sample's position under the symmetry
  const float* policy;       // the row's policy target under the symmetry (kPolicySize, policy index order)
};

// One head's target and loss.
struct TrainingTargetRow {
  // Writes the target of in into target[0, HeadFloats(row)), in the layout
  // of the head's logits; returns the row's weight in the loss (0: the
  // sample has no such target; target is then all zeros).
  float (*fill)(const TargetSource& in, float* target);
  // Returns the loss of each row [N] of the head's logits (in its shape)
  // against targets [N, HeadFloats(row)]; legal_mask [N, kPolicySize] (0
  // legal, kIllegalLogit otherwise) is there for policy heads.
  torch::Tensor (*loss)(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor& legal_mask);
};

// The rows, by TrainingHead.
const std::array<TrainingTargetRow, kNumTrainingHeads>& TrainingTargets();

// Writes the ownership target of a final board of the n x n board for the
// side to move under symmetry t: kOwnershipClasses x 64 floats, one-hot per
// square of the board, none off it.
void FillOwnership(const FinalBoard& board, Color side, int t, int n, float* out);

// The soft policy's exponent: the target is the policy to this power,
// normalised (KataGo's 1/4).
inline constexpr double kSoftPolicyPower = 0.25;

}  // namespace loa::train
