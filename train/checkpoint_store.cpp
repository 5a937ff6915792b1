#include "train/checkpoint_store.h"

#include <cstdio>

#include "core/error.h"

namespace loa::train {

std::optional<TrainingState> RestoreNewest(const RunDir& run, LoaNet& model, torch::optim::Optimizer* optimizer,
                                           Logger& log) {
  const std::vector<int64_t> steps = run.ListCheckpoints();
  for (size_t i = steps.size(); i-- > 0;) {
    const std::string path = run.CheckpointPath(steps[i]);
    try {
      TrainingState state = LoadCheckpoint(path, model, optimizer);
      log.Info("resumed from " + path + " (step " + std::to_string(state.step) + ")");
      return state;
    } catch (const loa::Error& e) {
      log.Warn(std::string("cannot load checkpoint ") + path + ": " + e.what() +
               (i > 0 ? "; falling back to the one before" : "; no older checkpoint, starting afresh"));
    }
  }
  return std::nullopt;
}

std::string NewestReadableCheckpoint(const RunDir& run, int64_t after_step, Logger* log) {
  const std::vector<int64_t> steps = run.ListCheckpoints();
  for (size_t i = steps.size(); i-- > 0 && steps[i] > after_step;) {
    const std::string path = run.CheckpointPath(steps[i]);
    try {
      ReadCheckpointInfo(path);
      return path;
    } catch (const loa::Error& e) {
      if (log) log->Warn(std::string("skipping checkpoint: ") + e.what());
    }
  }
  return "";
}

void PruneCheckpoints(const RunDir& run, int keep) {
  if (keep <= 0) return;
  const std::vector<int64_t> steps = run.ListCheckpoints();
  for (size_t i = 0; i + size_t(keep) < steps.size(); ++i) std::remove(run.CheckpointPath(steps[i]).c_str());
}

}  // namespace loa::train
