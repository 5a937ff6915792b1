#pragma once
// The training step's pieces: the losses of a batch and the optimiser, as
// the trainer uses them (and the unit tests, on a tiny buffer).

#include <array>
#include <memory>

#include <torch/torch.h>

#include "net/model.h"
#include "run/config.h"
#include "train/replay_buffer.h"

namespace loa::train {

// The losses of one batch, as tensors (total for backward) and numbers.
struct Losses {
  torch::Tensor total;
  double policy = 0, value = 0, moves_left = 0, entropy = 0, value_accuracy = 0;
  std::array<double, kNumTrainingHeads> heads{};  // the training-only heads' losses, 0 for a head the net lacks
};

// Returns the losses of the model on batch (policy cross-entropy over the
// legal moves, WDL cross-entropy, Huber moves-left, and for each
// training-only head the net has its row's loss (train/training_targets.h),
// averaged over the rows with its target), weighted by config; the value
// target mixes in the root value with weight q_weight.
Losses ComputeLosses(LoaNet& model, const Batch& b, const run::TrainConfig& c, double q_weight, torch::Device device);

// Returns the optimiser the config names over the model's parameters: SGD
// with momentum and L2 weight decay (AlphaZero), or AdamW.
std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const run::TrainConfig& c, LoaNet& model);

}  // namespace loa::train
