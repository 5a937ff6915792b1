#include "train/schedule.h"

#include <algorithm>
#include <cmath>

namespace loa::train {

double LearningRate(const run::TrainConfig& c, int64_t step, int64_t samples, double budget_spent) {
  const double warm = c.warmup_steps > 0 ? std::min(1.0, double(step + 1) / c.warmup_steps) : 1.0;
  double factor = 1.0;
  if (c.lr_schedule == "cosine") {
    double t = std::min(1.0, double(samples) / double(c.lr_decay_samples));
    if (c.lr_to_budget) {
      const double tail = (budget_spent - (1 - c.lr_budget_tail)) / c.lr_budget_tail;
      t = std::max(t, std::clamp(tail, 0.0, 1.0));
    }
    factor = c.lr_decay_factor + (1 - c.lr_decay_factor) * 0.5 * (1 + std::cos(M_PI * t));
  } else if (c.lr_schedule == "step") {
    factor = std::pow(c.lr_decay_factor, double(samples / c.lr_decay_samples));
  }
  return c.learning_rate * warm * factor;
}

double BudgetSpent(const run::Config& config, int64_t step, double hours) {
  double spent = 0;
  if (config.train.max_steps > 0) spent = std::max(spent, double(step) / double(config.train.max_steps));
  if (config.run.max_hours > 0) spent = std::max(spent, hours / config.run.max_hours);
  return spent;
}

TrainCredit::TrainCredit(const run::ReplayConfig& config)
    : ratio_(config.max_train_ratio), cap_(double(config.max_train_credit)) {}

void TrainCredit::Update(int64_t samples_seen, int64_t samples_trained) {
  if (seen_ < 0) {
    credit_ = std::max(0.0, ratio_ * double(samples_seen) - double(samples_trained));
    if (cap_ > 0) credit_ = std::min(credit_, cap_);
  } else {
    const double added = ratio_ * double(samples_seen - seen_);
    credit_ += added;
    if (cap_ > 0) credit_ = std::min(credit_, std::max(cap_, added));
  }
  seen_ = samples_seen;
}

}  // namespace loa::train
