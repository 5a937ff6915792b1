#pragma once
// The learning-rate schedule: a linear warm-up (Goyal et al. 2017), then
// constant, cosine (Loshchilov and Hutter 2017) or step decay.

#include <cstdint>

#include "train/config.h"

namespace loa::train {

// Returns the learning rate of step `step` (0-based) once `samples`
// self-play samples exist: warm-up from lr / warmup_steps to lr over
// warmup_steps steps, times
//   constant: 1;
//   cosine:   from 1 down to lr_decay_factor at lr_decay_samples, then flat;
//   step:     lr_decay_factor ^ floor(samples / lr_decay_samples).
double LearningRate(const TrainConfig& config, int64_t step, int64_t samples);

}  // namespace loa::train
