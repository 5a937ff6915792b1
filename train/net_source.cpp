#include "train/net_source.h"

#include <vector>

#include "core/error.h"
#include "mcts/uniform_evaluator.h"

namespace loa::train {

NetSource::NetSource(const run::RunDir& run, const NetEvaluatorOptions& options, bool uniform_before_training,
                     run::Logger& log)
    : run_(run), options_(options), uniform_before_training_(uniform_before_training), log_(log) {}

NetSource::~NetSource() = default;

bool NetSource::Refresh() {
  const int64_t in_use = step();
  const std::vector<int64_t> steps = run_.ListCheckpoints();
  for (size_t i = steps.size(); i-- > 0 && steps[i] > in_use;) {
    if (steps[i] == 0 && uniform_before_training_) break;  // the uniform evaluator stands in for step 0
    const std::string path = run_.CheckpointPath(steps[i]);
    if (bad_.count(path)) continue;
    std::shared_ptr<Evaluator> loaded;
    try {
      loaded = MakeNetEvaluator(path, options_);
    } catch (const loa::Error& e) {
      log_.Warn(std::string("self-play cannot load checkpoint: ") + e.what() + "; trying the one before");
      bad_.insert(path);
      continue;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = std::move(loaded);
    step_ = steps[i];
    return true;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!current_ && uniform_before_training_) {
    current_ = std::make_shared<UniformEvaluator>();
    step_ = 0;
    return true;
  }
  return false;
}

int64_t NetSource::step() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return step_;
}

void NetSource::Evaluate(const Position* positions, int count, EvalOutput* out) {
  std::shared_ptr<Evaluator> net;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    net = current_;
  }
  if (!net) throw Error("self-play has no net to evaluate with: the run has no readable checkpoint");
  net->Evaluate(positions, count, out);
}

}  // namespace loa::train
