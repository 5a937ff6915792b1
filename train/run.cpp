#include "train/run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include <unistd.h>

#include "core/error.h"
#include "core/file_util.h"
#include "core/param_visitor.h"
#include "net/checkpoint.h"
#include "net/export.h"
#include "run/checkpoints.h"
#include "run/logger.h"
#include "run/metrics.h"
#include "run/run_state.h"
#include "run/workers.h"
#include "train/checkpoint_store.h"
#include "train/evaluation.h"
#include "train/selfplay.h"
#include "train/stop.h"
#include "train/trainer.h"

namespace loa::train {
namespace {

// Evaluation in a thread of its own: the trainer queues checkpoints, the
// thread plays the newest one queued (skipping older ones it has not
// reached, so that it never falls far behind). After each round it waits
// so that it takes at most eval.max_share of the cores; closing the queue
// cuts the wait short, so the last checkpoint is rated at once. Each step is queued at most
// once, whoever asks and whenever: the steps queued are one set under the
// queue's lock, begun with those eval/matches.jsonl has rated already.
class EvalQueue {
 public:
  EvalQueue(CheckpointRater& rater, run::RunContext& run) : rater_(rater), config_(run.config.eval), log_(run.log) {
    for (const MatchRecord& r : ReadMatchRecords(run.dir))
      if (const std::optional<int64_t> step = run::CheckpointStep(r.a)) queued_.insert(*step);
    thread_ = std::thread([this] { Loop(); });
  }
  ~EvalQueue() { Close(); }

  // Queues checkpoint step for evaluation unless it was queued (or rated)
  // before; thread-safe.
  void Push(int64_t step, double hours) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!queued_.insert(step).second) return;
    pending_ = Item{step, hours};
    changed_.notify_all();
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
      }
      const auto begun = std::chrono::steady_clock::now();
      try {
        rater_.Rate(item.step, item.hours);
      } catch (const loa::Error& e) {
        log_.Error(std::string("evaluation of step ") + std::to_string(item.step) + " failed: " + e.what());
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
      const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
      const double pause = EvalPauseSeconds(seconds, config_.threads, cores, config_.max_share);
      if (pause <= 0) continue;
      log_.Info("evaluation: the round took " + std::to_string(std::lround(seconds)) + " s; the next begins in " +
                std::to_string(std::lround(pause)) + " s or later (eval.max_share " + FormatDouble(config_.max_share) +
                ")");
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait_for(lock, std::chrono::duration<double>(pause), [&] { return closing_; });
    }
  }

  CheckpointRater& rater_;
  const run::EvalConfig& config_;
  run::Logger& log_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Item> pending_;
  std::set<int64_t> queued_;
  bool closing_ = false;
  std::thread thread_;
};

// How often a process of the run reads the run's state (state.json).
constexpr std::chrono::seconds kStatePoll{2};

// Reads the run's state every kStatePoll while it lives: `loaz stop` (the
// state stopped) stops the process cleanly, as SIGTERM does; a run that
// finished ends the self-play of a process without the trainer. A damaged
// state.json is reported once (and read as running). In the trainer's
// process it keeps the trainer's heartbeat (trainer.json) every
// kHeartbeatSeconds, ended when it goes; in a process without the trainer
// it watches that heartbeat, and once it has been stale (or ended while
// the run goes on) for cluster.trainer_gone_minutes, stops the run rather
// than play for nothing, saying so in the state and the log.
class StateWatch {
 public:
  StateWatch(run::RunContext& run, bool trainer, std::atomic<bool>& stop_selfplay)
      : dir_(run.dir), trainer_(trainer), gone_seconds_(60 * run.config.cluster.trainer_gone_minutes), log_(run.log) {
    started_ = run::UnixNow();
    if (trainer_) Beat(false);
    thread_ = std::thread([this, &stop_selfplay] {
      std::unique_lock<std::mutex> lock(mutex_);
      double last_beat = run::UnixNow();
      while (!changed_.wait_for(lock, kStatePoll, [this] { return closing_; })) {
        const run::RunStatus status = run::ReadRunState(dir_);
        if (status.damage != told_damage_ && !status.damage.empty()) log_.Warn(status.damage);
        told_damage_ = status.damage;
        if (status.state == run::RunState::kStopped && !StopRequested()) {
          log_.Info("the run was stopped (" + status.reason + "); ending cleanly");
          RequestStop();
        } else if (status.state == run::RunState::kFinished && !trainer_ && !stop_selfplay) {
          log_.Info("the run has finished (" + status.reason + "); self-play ends");
          stop_selfplay = true;
        }
        const double now = run::UnixNow();
        if (trainer_ && now - last_beat >= run::kHeartbeatSeconds) {
          Beat(false);
          last_beat = now;
        }
        if (!trainer_ && !status.ended() && !stop_selfplay && TrainerGone(now)) stop_selfplay = true;
      }
    });
  }
  ~StateWatch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    thread_.join();
    if (trainer_) Beat(true);
  }

 private:
  void Beat(bool ended) {
    run::WorkerBeat beat;
    beat.name = "trainer";
    beat.host = ThisHost();
    beat.pid = ::getpid();
    beat.job = run::BatchJobName();
    beat.started = started_;
    beat.time = run::UnixNow();
    const std::vector<int64_t> steps = dir_.ListCheckpoints();
    beat.net_step = steps.empty() ? -1 : steps.back();
    beat.ended = ended;
    try {
      run::WriteTrainerBeat(dir_, beat);
    } catch (const IoError& e) {
      log_.Warn(std::string("the trainer's heartbeat was not written: ") + e.what());  // a full disk: train on
    }
  }

  // Returns whether the trainer has been gone long enough to stop the run
  // for (and then stops it): its heartbeat stale or ended for
  // gone_seconds_. A run whose trainer never beat (it has not started yet,
  // or the run is older than heartbeats) is left alone.
  bool TrainerGone(double now) {
    if (gone_seconds_ <= 0) return false;
    std::string damage;
    const std::optional<run::WorkerBeat> beat = run::ReadTrainerBeat(dir_, &damage);
    if (!damage.empty() && damage != told_damage_) log_.Warn(damage);
    if (!beat || run::LivenessAt(*beat, now) == run::WorkerLiveness::kAlive || now - beat->time < gone_seconds_)
      return false;
    const std::string reason = "the trainer's heartbeat is " + std::to_string(std::lround((now - beat->time) / 60)) +
                               " min old (last from " + beat->host + " pid " + std::to_string(beat->pid) +
                               "); self-play on " + ThisHost() + " stopped the run rather than play for nothing";
    log_.Warn(reason + "; `loaz train --run` or `loaz launch slurm --run` resumes it");
    try {
      run::WriteRunState(dir_, run::RunState::kStopped, reason);
    } catch (const IoError& e) {
      log_.Warn(std::string("the run's state was not written: ") + e.what());
    }
    return true;
  }

  const run::RunDir& dir_;
  const bool trainer_;
  const double gone_seconds_;
  run::Logger& log_;
  double started_ = 0;
  std::string told_damage_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool closing_ = false;
  std::thread thread_;
};

// Returns whether checkpoint `step` is due for evaluation.
bool EvalDue(const run::Config& c, int64_t step) {
  if (c.eval.every_checkpoints <= 0 || step <= 0) return false;
  return (step / c.train.checkpoint_every) % c.eval.every_checkpoints == 0;
}

}  // namespace

ExportedNet ExportRunNet(const run::RunDir& dir, const std::vector<int64_t>& steps) {
  if (steps.empty()) throw Error(dir.root() + ": no checkpoint to export");
  std::vector<ExportedNet> nets;
  for (int64_t step : steps) nets.push_back(ExportCheckpoint(dir.CheckpointPath(step)));
  return nets.size() == 1 ? nets.front() : AverageNets(nets);
}

namespace {

// Runs the trainer with evaluation in a thread beside it; when the run
// reaches its limit, evaluates and exports the last checkpoint. Returns
// false when the trainer failed.
bool TrainAndEvaluate(run::RunContext& run, Trainer& trainer, std::atomic<bool>& stop_selfplay) {
  const run::Config& config = run.config;
  const run::RunDir& dir = run.dir;
  run::Logger& log = run.log;
  CheckpointRater rater(run);
  EvalQueue evals(rater, run);
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
  // Workers of other processes and machines end at their next check.
  run::WriteRunState(dir, run::RunState::kFinished,
                     "the trainer reached the run's budget at step " + std::to_string(last) + " on " + ThisHost());
  if (config.eval.every_checkpoints > 0 && last > 0) evals.Push(last, trainer.Hours());
  evals.Close();
  std::vector<int64_t> steps = run::FinalExportSteps(dir, last, config.train.export_average);
  ExportedNet net;
  try {
    net = ExportRunNet(dir, steps);
  } catch (const Error& e) {
    // An older checkpoint that cannot be read costs the average, not the export.
    log.Warn(std::string("the export is the last checkpoint alone: ") + e.what());
    steps = {last};
    net = ExportRunNet(dir, steps);
  }
  WriteExport(dir.ExportPath(), net);
  log.Info("run finished at step " + std::to_string(last) + "; exported " +
           (steps.size() == 1 ? std::string("it")
                              : "the mean of its checkpoints " + std::to_string(steps.front()) + " to " +
                                    std::to_string(last) + " (" + std::to_string(steps.size()) + ")") +
           " to " + dir.ExportPath());
  return true;
}

}  // namespace

int RunTraining(const run::OpenedRun& opened, const RunParts& parts) {
  run::RunContext run(opened.config, opened.dir);
  const run::RunDir& dir = run.dir;
  run::Logger& log = run.log;
  // Temporary files of writes that a kill cut short (this host's, whose
  // process is gone; another host sharing the folder may still be writing).
  int stale = 0;
  for (const std::string& folder : dir.WrittenFolders()) stale += RemoveStaleTempFiles(folder);
  if (stale > 0) log.Info("removed " + std::to_string(stale) + " temporary files of writes cut short");
  const run::RunStatus status = run::ReadRunState(dir);
  if (parts.trainer && parts.unless_ended && status.ended()) {
    log.Info(std::string("the run has ") + run::RunStateName(status.state) + " (" + status.reason +
             "); the trainer has nothing to do (`loaz train --run DIR` or `loaz launch slurm --run DIR` resumes it)");
    return 0;
  }
  if (parts.trainer) {
    // A start or resume sets the run going again, whatever ended it before.
    run::WriteRunState(dir, run::RunState::kRunning, "the trainer started on " + ThisHost());
  } else if (status.ended()) {
    log.Info(std::string("the run has ") + run::RunStateName(status.state) + " (" + status.reason +
             "); self-play has nothing to do");
    return 0;
  }
  log.Info(std::string(opened.resumed ? "resuming" : "starting") + " run " + dir.root() + " (" +
           (parts.selfplay && parts.trainer ? "self-play and trainer"
            : parts.selfplay                ? "self-play only"
                                            : "trainer only") +
           ")");
  std::unique_ptr<Trainer> trainer;
  if (parts.trainer) {
    trainer = std::make_unique<Trainer>(run);
    trainer->RestoreOrStart();
  }
  std::atomic<bool> stop_selfplay{false}, failed{false};
  const StateWatch watch(run, parts.trainer, stop_selfplay);
  std::thread selfplay_thread;
  std::unique_ptr<SelfPlay> selfplay;
  if (parts.selfplay) {
    selfplay = std::make_unique<SelfPlay>(run, parts.selfplay_name);
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
      if (!TrainAndEvaluate(run, *trainer, stop_selfplay)) failed = true;
    } catch (const std::exception& e) {
      log.Error(std::string("run failed: ") + e.what());
      failed = true;
      RequestStop();
    }
    stop_selfplay = true;
  }
  if (selfplay_thread.joinable()) selfplay_thread.join();
  if (failed) return 1;
  if (StopRequested())
    log.Info("stopped cleanly; resume with `loaz train --run " + dir.root() + "`");
  else if (stop_selfplay && !parts.trainer)
    log.Info("self-play ended with the run");
  return 0;
}

}  // namespace loa::train
