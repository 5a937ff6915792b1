#pragma once
// The training step's pieces: the losses of a batch and the optimiser, as
// the trainer uses them (and the unit tests, on a tiny buffer).

#include <memory>

#include <torch/torch.h>

#include "net/model.h"
#include "run/config.h"
#include "train/replay_buffer.h"

namespace loa::train {

// The losses of one batch, as tensors (total for backward) and numbers.
struct Losses {
  torch::Tensor total;
  double policy = 0, value = 0, moves_left = 0, ownership = 0, reply = 0, entropy = 0, value_accuracy = 0;
};

// Returns the losses of the model on batch (policy cross-entropy over the
// legal moves, WDL cross-entropy, Huber moves-left, and with an ownership
// head the cross-entropy of each square's end state, averaged over the
// squares of the rows whose final board is known, and with a reply head the
// cross-entropy of the opponent's next move over all 512 slots, averaged
// over the rows that have one), weighted by config; the value target mixes
// in the root value with weight q_weight.
Losses ComputeLosses(LoaNet& model, const Batch& b, const run::TrainConfig& c, double q_weight, torch::Device device);

// Returns the optimiser the config names over the model's parameters: SGD
// with momentum and L2 weight decay (AlphaZero), or AdamW.
std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const run::TrainConfig& c, LoaNet& model);

}  // namespace loa::train
