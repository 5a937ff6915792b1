#pragma once
// The net self-play searches with: an Evaluator that forwards to the newest
// checkpoint of the run, switched while games go on (KataGo's self-play
// picks up each new model the same way).

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "mcts/evaluator.h"
#include "net/net_evaluator.h"
#include "run/logger.h"
#include "run/run_dir.h"

namespace loa::train {

class NetSource : public Evaluator {
 public:
  // uniform_before_training: answer with uniform priors and an even value
  // until a checkpoint past step 0 exists (the random net says as little,
  // at a fraction of the cost).
  NetSource(const run::RunDir& run, const NetEvaluatorOptions& options, bool uniform_before_training, run::Logger& log);
  ~NetSource() override;

  // Loads the newest readable checkpoint newer than the one in use; a
  // checkpoint that fails to load is named in a warning once and passed
  // over. Returns whether the net changed. Thread-safe; the load happens
  // outside the lock, so searches go on meanwhile.
  bool Refresh();

  // Returns the step of the net in use (-1: none yet).
  int64_t step() const;

  // Evaluates with the net in use; Refresh must have found one, or
  // uniform_before_training be set. Thread-safe.
  void Evaluate(const Position* positions, int count, EvalOutput* out) override;

 private:
  const run::RunDir& run_;
  const NetEvaluatorOptions options_;
  const bool uniform_before_training_;
  run::Logger& log_;
  mutable std::mutex mutex_;
  std::shared_ptr<Evaluator> current_;
  int64_t step_ = -1;
  std::set<std::string> bad_;
};

}  // namespace loa::train
