#pragma once
// The learning-rate schedule: a linear warm-up (Goyal et al. 2017), then
// constant, cosine (Loshchilov and Hutter 2017) or step decay.

#include <cstdint>

#include "train/config.h"

namespace loa::train {

// Returns the learning rate of step `step` (0-based) once `samples`
// self-play samples exist and `budget_spent` (0..1) of the run's budget is
// spent: warm-up from lr / warmup_steps to lr over warmup_steps steps, times
//   constant: 1;
//   cosine:   from 1 down to lr_decay_factor at lr_decay_samples (or at the
//             budget's end, with lr_to_budget, whichever comes first; the
//             budget's decay starts when 1 - lr_budget_tail of it is spent),
//             then flat;
//   step:     lr_decay_factor ^ floor(samples / lr_decay_samples).
double LearningRate(const TrainConfig& config, int64_t step, int64_t samples, double budget_spent = 0);

// Returns the share of the run's budget spent after `step` steps and `hours`
// of run time: the larger of step / train.max_steps and hours /
// run.max_hours, 0 when the run has neither.
double BudgetSpent(const Config& config, int64_t step, double hours);

}  // namespace loa::train
