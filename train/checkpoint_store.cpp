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
void SetAside(const RunDir& run, const std::vector<std::string>& damaged, Logger& log) {
  if (damaged.empty()) return;
  const std::filesystem::path folder = std::filesystem::path(run.CheckpointDir()) / "damaged";
  std::filesystem::create_directories(folder);
  for (const std::string& path : damaged) {
    std::filesystem::path target = folder / std::filesystem::path(path).filename();
    for (int n = 1; std::filesystem::exists(target); ++n)
      target = folder / (std::filesystem::path(path).filename().string() + "." + std::to_string(n));
    std::filesystem::rename(path, target);
    log.Warn("moved the damaged " + path + " to " + target.string());
  }
}

}  // namespace

std::optional<TrainingState> RestoreNewest(const RunDir& run, LoaNet& model, torch::optim::Optimizer* optimizer,
                                           Logger& log, LoaNet* average) {
  const std::vector<int64_t> steps = run.ListCheckpoints();
  std::vector<std::string> damaged;
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
      damaged.push_back(path);
    }
  }
  if (!damaged.empty())
    throw Error(run.root() + ": none of its " + std::to_string(damaged.size()) +
                " checkpoints loads (see the warnings above); nothing was written");
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

double CheckpointHours(const RunDir& dir, int64_t step) {
  try {
    const CheckpointInfo info = ReadCheckpointInfo(dir.CheckpointPath(step));
    const auto it = info.state.counters.find(kElapsedMsCounter);
    return it == info.state.counters.end() ? 0.0 : double(it->second) / 3.6e6;
  } catch (const loa::Error&) {
    return 0.0;
  }
}

std::string RunExportPath(const RunDir& dir) { return dir.root() + "/net.safetensors"; }

std::string ResolveRunCheckpoint(const RunDir& dir, int64_t step) {
  if (step < 0) {
    const std::string newest = NewestReadableCheckpoint(dir, -1, nullptr);
    if (newest.empty()) throw Error(dir.root() + ": the run has no readable checkpoint");
    return newest;
  }
  const std::string path = dir.CheckpointPath(step);
  if (!std::filesystem::exists(path))
    throw Error(dir.root() + ": the run has no checkpoint of step " + std::to_string(step));
  return path;
}

std::vector<int64_t> CheckpointsUpTo(const RunDir& dir, int64_t step, int count, int64_t min_step) {
  const std::string newest = ResolveRunCheckpoint(dir, step);
  std::vector<int64_t> steps = dir.ListCheckpoints();
  if (step < 0) {
    step = -1;
    for (int64_t s : steps)
      if (dir.CheckpointPath(s) == newest) step = s;
  }
  std::vector<int64_t> chosen;
  for (auto it = steps.rbegin(); it != steps.rend() && int(chosen.size()) < count; ++it)
    if (*it <= step && *it >= min_step) chosen.push_back(*it);
  std::reverse(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace loa::train
