#pragma once
// The learning-rate schedule: a linear warm-up (Goyal et al. 2017), then
// constant, cosine (Loshchilov and Hutter 2017) or step decay; and the
// train ratio's credit, which paces the trainer to self-play.

#include <cstdint>

#include "run/config.h"

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
double LearningRate(const run::TrainConfig& config, int64_t step, int64_t samples, double budget_spent = 0);

// Returns the share of the run's budget spent after `step` steps and `hours`
// of run time: the larger of step / train.max_steps and hours /
// run.max_hours, 0 when the run has neither.
double BudgetSpent(const run::Config& config, int64_t step, double hours);

// The train ratio as a bucket of credit, in samples (KataGo's train
// bucket): each new self-play sample adds replay.max_train_ratio samples,
// each step spends its batch, and the bucket holds at most
// replay.max_train_credit (or the newest update's credit, where that is
// more, so that no steady ratio is cut; a cap of 0: none). The first update
// of a start, a resume or a fork fills it with what the run's history left,
// the ratio times the samples seen less the samples trained, capped: a fork
// that lowers the ratio trains at the new ratio at once, and one that
// raises it catches up at most the cap, not the whole history again.
class TrainCredit {
 public:
  explicit TrainCredit(const run::ReplayConfig& config);
  // Takes the running total of self-play samples the trainer has seen (its
  // window's, not validation's) and, on the first call, of samples trained.
  void Update(int64_t samples_seen, int64_t samples_trained);
  bool Allows(int64_t batch) const { return credit_ >= double(batch); }
  void Spend(int64_t samples) { credit_ -= double(samples); }
  double credit() const { return credit_; }

 private:
  double ratio_, cap_, credit_ = 0;
  int64_t seen_ = -1;  // the samples counted so far; -1 before the first update
};

}  // namespace loa::train
