#include "train/run.h"

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "net/checkpoint.h"
#include "net/export.h"
#include "train/checkpoint_store.h"
#include "train/evaluation.h"
#include "train/logger.h"
#include "train/metrics.h"
#include "train/selfplay.h"
#include "train/stop.h"
#include "train/trainer.h"

namespace loa::train {
namespace {

// Evaluation in a thread of its own: the trainer queues checkpoints, the
// thread plays the newest one queued (skipping older ones it has not
// reached, so that it never falls far behind).
class EvalQueue {
 public:
  EvalQueue(CheckpointRater& rater, Logger& log) : rater_(rater), log_(log) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~EvalQueue() { Close(); }

  // Queues checkpoint step for evaluation; thread-safe.
  void Push(int64_t step, double hours) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_ && pending_->step != step)
      log_.Info("evaluation is behind: skipping step " + std::to_string(pending_->step));
    pending_ = Item{step, hours};
    changed_.notify_all();
  }

  // Returns the last step queued or played (-1 if none).
  int64_t last_queued() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_queued_;
  }

  // Plays what is queued (unless a stop is requested), then ends the thread.
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Item {
    int64_t step;
    double hours;
  };

  void Loop() {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return pending_ || closing_; });
        if (!pending_ || StopRequested()) return;
        item = *pending_;
        pending_.reset();
        last_queued_ = item.step;
      }
      try {
        rater_.Rate(item.step, item.hours);
      } catch (const loa::Error& e) {
        log_.Error(std::string("evaluation of step ") + std::to_string(item.step) + " failed: " + e.what());
      }
    }
  }

  CheckpointRater& rater_;
  Logger& log_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Item> pending_;
  int64_t last_queued_ = -1;
  bool closing_ = false;
  std::thread thread_;
};

// Returns whether checkpoint `step` is due for evaluation.
bool EvalDue(const Config& c, int64_t step) {
  if (c.eval.every_checkpoints <= 0 || step <= 0) return false;
  return (step / c.train.checkpoint_every) % c.eval.every_checkpoints == 0;
}

// Returns whether eval/matches.jsonl holds a match of checkpoint `step`.
bool Evaluated(const RunDir& dir, int64_t step) {
  for (const MatchRecord& r : ReadMatchRecords(dir))
    if (r.a == CheckpointName(step)) return true;
  return false;
}

}  // namespace

OpenedRun OpenRunFromConfig(const std::string& config_path, const std::vector<std::string>& overrides) {
  OpenedRun run{LoadConfig(config_path, overrides), RunDir(""), false};
  run.dir = RunDir(run.config.RunDirectory());
  const std::string yaml = ConfigToYaml(run.config);
  if (run.dir.Exists()) {
    if (ReadFile(run.dir.ConfigPath()) != yaml)
      throw Error(run.dir.root() + " already holds a run with another config; resume it with `loaz train --run " +
                  run.dir.root() + "` (--set section.key=value to change a value), or choose another run.name");
    run.resumed = true;
    return run;
  }
  run.dir.Create();
  WriteFileAtomic(run.dir.ConfigPath(), yaml);
  return run;
}

OpenedRun OpenRunDirectory(const std::string& dir, const std::vector<std::string>& overrides, bool persist) {
  OpenedRun run{Config(), RunDir(dir), true};
  if (!run.dir.Exists()) throw Error(dir + ": not a run directory (no config.yaml)");
  run.config = LoadConfig(run.dir.ConfigPath(), overrides);
  run.dir.Create();
  if (persist && !overrides.empty()) WriteFileAtomic(run.dir.ConfigPath(), ConfigToYaml(run.config));
  return run;
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

int64_t ExportRunCheckpoint(const RunDir& dir, int64_t step, const std::string& path) {
  ExportedNet net = ExportCheckpoint(ResolveRunCheckpoint(dir, step));
  WriteExport(path, net);
  return net.step;
}

namespace {

// Runs the trainer with evaluation in a thread beside it; when the run
// reaches its limit, evaluates and exports the last checkpoint. Returns
// false when the trainer failed.
bool TrainAndEvaluate(const Config& config, const RunDir& dir, Trainer& trainer, Logger& log, MetricsLog& metrics,
                      std::atomic<bool>& stop_selfplay) {
  CheckpointRater rater(config, dir, log, metrics);
  EvalQueue evals(rater, log);
  int64_t last = -1;
  try {
    last = trainer.Run([&](int64_t step, const std::string&) {
      if (EvalDue(config, step)) evals.Push(step, trainer.Hours());
    });
  } catch (const std::exception& e) {
    log.Error(std::string("trainer failed: ") + e.what());
    RequestStop();
    return false;
  }
  stop_selfplay = true;
  if (StopRequested() || !trainer.Finished()) return true;
  if (config.eval.every_checkpoints > 0 && last > 0 && evals.last_queued() != last && !Evaluated(dir, last))
    evals.Push(last, trainer.Hours());
  evals.Close();
  ExportRunCheckpoint(dir, last, RunExportPath(dir));
  log.Info("run finished at step " + std::to_string(last) + "; exported it to " + RunExportPath(dir));
  return true;
}

}  // namespace

int RunTraining(const OpenedRun& opened, const RunParts& parts) {
  const Config& config = opened.config;
  const RunDir& dir = opened.dir;
  Logger log(dir.LogPath());
  MetricsLog metrics(dir.MetricsPath());
  log.Info(std::string(opened.resumed ? "resuming" : "starting") + " run " + dir.root() + " (" +
           (parts.selfplay && parts.trainer ? "self-play and trainer"
            : parts.selfplay                ? "self-play only"
                                            : "trainer only") +
           ")");
  std::unique_ptr<Trainer> trainer;
  if (parts.trainer) {
    trainer = std::make_unique<Trainer>(config, dir, log, metrics);
    trainer->RestoreOrStart();
  }
  std::atomic<bool> stop_selfplay{false}, failed{false};
  std::thread selfplay_thread;
  std::unique_ptr<SelfPlay> selfplay;
  if (parts.selfplay) {
    selfplay = std::make_unique<SelfPlay>(config, dir, log, metrics, parts.selfplay_name);
    selfplay_thread = std::thread([&] {
      try {
        selfplay->Run(stop_selfplay);
      } catch (const std::exception& e) {
        log.Error(std::string("self-play failed: ") + e.what());
        failed = true;
        RequestStop();
      }
    });
  }
  if (trainer) {
    // Nothing may escape while the self-play thread is joinable.
    try {
      if (!TrainAndEvaluate(config, dir, *trainer, log, metrics, stop_selfplay)) failed = true;
    } catch (const std::exception& e) {
      log.Error(std::string("run failed: ") + e.what());
      failed = true;
      RequestStop();
    }
    stop_selfplay = true;
  }
  if (selfplay_thread.joinable()) selfplay_thread.join();
  if (failed) return 1;
  if (StopRequested()) log.Info("stopped cleanly; resume with `loaz train --run " + dir.root() + "`");
  return 0;
}

}  // namespace loa::train
