#pragma once
// The training-only heads: outputs off the trunk that the trainer trains
// towards a target of their own (KataGo's auxiliary targets) and that
// exports leave out, so that play never runs them. One row each; the row's
// target and loss are its row in train/training_targets.cpp
// (docs/DESIGN.md, "Where a change goes"). No LibTorch here.

#include <array>
#include <cstddef>

#include "core/types.h"

namespace loa {

// The shape of a head's logits for N positions.
enum class HeadShape {
  kPerSquare,  // a convolutional head: [N, outputs, 64], outputs logits per square
  kPolicy,     // a convolutional head of 8 outputs read as a policy: [N, 512] in policy index order
};

// One training-only head: its names, its shape and its loss's default weight.
struct TrainingHeadRow {
  const char* name;          // the module's name (its tensors' prefix) and the metric's (NAME_loss)
  const char* channels_key;  // net.NAME_channels: the width of its 1x1 convolution; 0: no such head
  const char* weight_key;    // train.NAME_weight: its loss's weight
  const char* channels_help;
  const char* weight_help;
  HeadShape shape;
  int outputs;  // logits per square (kPerSquare); kNumDirections for kPolicy
  double weight;
};

// The heads, in the order of every array indexed by TrainingHead.
enum TrainingHead : int { kOwnershipHead, kReplyHead, kSoftPolicyHead, kNumTrainingHeads };

// The ownership head's classes per square, in its output's channel order:
// where the game ended, from the view of the side to move now.
enum OwnershipClass { kOwnershipOwn = 0, kOwnershipEnemy = 1, kOwnershipEmpty = 2 };
inline constexpr int kOwnershipClasses = 3;

inline constexpr std::array<TrainingHeadRow, kNumTrainingHeads> kTrainingHeads = {{
    // KataGo's ownership, with LOA's three states of a square (own piece,
    // enemy piece, empty at the game's end); KataGo's weight 1.5 per board,
    // on the mean over the squares.
    {"ownership", "ownership_channels", "ownership_weight",
     "width of the ownership head (a training target; 0: no such head)",
     "weight of the ownership loss (with net.ownership_channels > 0)", HeadShape::kPerSquare, kOwnershipClasses, 1.5},
    // The move the opponent plays next, KataGo's auxiliary policy target
    // and weight (0.15).
    {"reply", "reply_channels", "reply_weight",
     "width of the opponent's-reply policy head (a training target; 0: no such head)",
     "weight of the opponent's-reply policy loss (with net.reply_channels > 0)", HeadShape::kPolicy, kNumDirections,
     0.15},
    // KataGo's soft policy: the search's policy target raised to the power
    // 1/4 and normalised, which makes the head learn the moves the search
    // rates low as well as the best (weight 8 in KataGo's, on a
    // cross-entropy that small).
    {"soft_policy", "soft_policy_channels", "soft_policy_weight",
     "width of the soft policy head (the search's policy to the power 1/4; a training target; 0: no such head)",
     "weight of the soft policy loss (with net.soft_policy_channels > 0)", HeadShape::kPolicy, kNumDirections, 8.0},
}};

// Returns the floats of one position's logits of a head (and of its target).
constexpr int HeadFloats(const TrainingHeadRow& row) {
  return row.shape == HeadShape::kPolicy ? kNumSquares * kNumDirections : row.outputs * kNumSquares;
}

// The rows' default loss weights, by TrainingHead.
constexpr std::array<double, kNumTrainingHeads> DefaultHeadWeights() {
  std::array<double, kNumTrainingHeads> weights{};
  for (int h = 0; h < kNumTrainingHeads; ++h) weights[size_t(h)] = kTrainingHeads[size_t(h)].weight;
  return weights;
}

}  // namespace loa
