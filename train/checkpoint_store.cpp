#include "train/checkpoint_store.h"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace loa::train {
namespace {

// Moves damaged checkpoints newer than the one resumed from into
// checkpoints/damaged/, kept for inspection, so that the steps the run
// trains again are written fresh and nothing is ever overwritten.
void SetAside(const run::RunDir& run, const std::vector<int64_t>& damaged, run::Logger& log) {
  if (damaged.empty()) return;
  const std::filesystem::path folder = run.DamagedCheckpointDir();
  std::filesystem::create_directories(folder);
  for (const int64_t step : damaged) {
    // The checkpoint, then its header (a kill between leaves a header
    // without its checkpoint, which no listing shows).
    for (const std::string& path : {run.CheckpointPath(step), run.CheckpointHeaderPath(step)}) {
      if (!std::filesystem::exists(path)) continue;
      std::filesystem::path target = folder / std::filesystem::path(path).filename();
      for (int n = 1; std::filesystem::exists(target); ++n)
        target = folder / (std::filesystem::path(path).filename().string() + "." + std::to_string(n));
      std::filesystem::rename(path, target);
      log.Warn("moved the damaged " + path + " to " + target.string());
    }
  }
}

}  // namespace

std::optional<TrainingState> RestoreNewest(const run::RunDir& run, LoaNet& model, torch::optim::Optimizer* optimizer,
                                           run::Logger& log, LoaNet* average) {
  const std::vector<int64_t> steps = run.ListCheckpoints();
  std::vector<int64_t> damaged;
  for (size_t i = steps.size(); i-- > 0;) {
    const std::string path = run.CheckpointPath(steps[i]);
    // Another architecture is not damage: the run's config and its
    // checkpoints disagree, and nothing may be set aside or written.
    std::optional<CheckpointInfo> info;
    try {
      info = ReadCheckpointInfo(path);
    } catch (const loa::Error&) {
    }
    if (info && info->config != model->config())
      throw Error(path + ": architecture " + info->config.ShortName() + ", but the run's config says " +
                  model->config().ShortName() + "; a run directory holds one architecture");
    try {
      TrainingState state = LoadCheckpoint(path, model, optimizer, average);
      log.Info("resumed from " + path + " (step " + std::to_string(state.step) + ")");
      SetAside(run, damaged, log);
      return state;
    } catch (const loa::Error& e) {
      log.Warn(std::string("cannot load checkpoint ") + path + ": " + e.what() +
               (i > 0 ? "; falling back to the one before" : ""));
      damaged.push_back(steps[i]);
    }
  }
  if (!damaged.empty())
    throw Error(run.root() + ": none of its " + std::to_string(damaged.size()) +
                " checkpoints loads (see the warnings above); nothing was written");
  return std::nullopt;
}

std::string NewestReadableCheckpoint(const run::RunDir& run, int64_t after_step, run::Logger* log) {
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

void PruneCheckpoints(const run::RunDir& run, int keep) {
  if (keep <= 0) return;
  const std::vector<int64_t> steps = run.ListCheckpoints();
  for (size_t i = 0; i + size_t(keep) < steps.size(); ++i) {
    std::remove(run.CheckpointPath(steps[i]).c_str());
    std::remove(run.CheckpointHeaderPath(steps[i]).c_str());
  }
}

void WriteMissingCheckpointHeaders(const run::RunDir& run, run::Logger* log) {
  for (int64_t step : run.ListCheckpoints()) {
    if (run::ReadCheckpointHeader(run, step)) continue;
    try {
      const CheckpointInfo info = ReadCheckpointInfo(run.CheckpointPath(step));
      run::WriteCheckpointHeader(run, HeaderOf(info.state, info.config));
    } catch (const loa::Error& e) {
      if (log) log->Warn(std::string("no header for checkpoint ") + run.CheckpointPath(step) + ": " + e.what());
    }
  }
}

std::string ResolveReadableCheckpoint(const run::RunDir& run, int64_t step) {
  if (step >= 0) return run::ResolveRunCheckpoint(run, step);
  const std::string newest = NewestReadableCheckpoint(run, -1, nullptr);
  if (newest.empty()) throw Error(run.root() + ": the run has no readable checkpoint");
  return newest;
}

run::CheckpointHeader HeaderOf(const TrainingState& state, const NetConfig& config) {
  run::CheckpointHeader header;
  header.step = state.step;
  header.counters = state.counters;
  header.architecture = config.ShortName();
  return header;
}

}  // namespace loa::train
