#pragma once
// The learning-rate schedule: a linear warm-up (Goyal et al. 2017), then
// constant, cosine (Loshchilov and Hutter 2017) or step decay.

#include <cstdint>

#include "train/config.h"

namespace loa::train {

// Returns the learning rate of step `step` (0-based) under config: warm-up
// from lr / warmup_steps to lr over warmup_steps steps, then
//   constant: lr;
//   cosine:   from lr down to lr * lr_decay_factor at lr_decay_steps, then flat;
//   step:     lr * lr_decay_factor ^ floor(step / lr_decay_steps).
double LearningRate(const TrainConfig& config, int64_t step);

}  // namespace loa::train
