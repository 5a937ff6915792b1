// loaz status and loaz stop: what a run is doing, on one machine or many,
// and ending it cleanly (docs/CLUSTER.md).

#include "app/cli.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"
#include "run/checkpoints.h"
#include "run/run_state.h"
#include "run/slurm.h"
#include "run/workers.h"

namespace loa::app {
namespace {

// Throws Error unless dir holds a run.
run::RunDir OpenRun(const std::string& dir) {
  const run::RunDir run(dir);
  run.CheckHoldsRun();
  return run;
}

// Returns "12 s", "5 min" or "3.2 h".
std::string Ago(double seconds) {
  char text[32];
  if (seconds < 120)
    std::snprintf(text, sizeof text, "%.0f s", std::max(0.0, seconds));
  else if (seconds < 7200)
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

// Returns the status of a run as JSON: its state, newest checkpoint,
// trainer, jobs and workers, and every file of theirs that is damaged.
nlohmann::json StatusJson(const run::RunDir& run) {
  const double now = run::UnixNow();
  const run::RunStatus status = run::ReadRunState(run);
  std::vector<std::string> damaged;
  if (!status.damage.empty()) damaged.push_back(status.damage);
  nlohmann::json out = {{"run", run.root()},
                        {"state", run::RunStateName(status.state)},
                        {"reason", status.reason},
                        {"since", status.time}};
  const std::vector<int64_t> steps = run.ListCheckpoints();
  if (!steps.empty()) out["checkpoint"] = {{"step", steps.back()}, {"hours", run::CheckpointHours(run, steps.back())}};
  std::string damage;
  out["trainer"] = run::TrainerJson(run, now, &damage);
  if (!damage.empty()) damaged.push_back(damage);
  damage.clear();
  const run::SlurmJobs jobs = run::ReadSlurmJobs(run, &damage);
  if (!damage.empty()) damaged.push_back(damage);
  if (!jobs.trainer.empty() || !jobs.selfplay.empty())
    out["slurm"] = {{"trainer", jobs.trainer},
                    {"trainer_state", run::SlurmJobState(jobs.trainer)},
                    {"selfplay", jobs.selfplay},
                    {"selfplay_state", run::SlurmJobState(jobs.selfplay)}};
  out["workers"] = run::WorkersJson(run, now, &damaged);
  out["damaged"] = damaged;
  return out;
}

// The trainer's line: alive, stale (gone without a word) or ended.
void PrintTrainer(const nlohmann::json& t) {
  if (t.is_null()) {
    std::printf("trainer: no heartbeat yet\n");
    return;
  }
  const std::string liveness = t["liveness"], job = t["job"];
  const std::string where = "on " + t["host"].get<std::string>() + " pid " + std::to_string(t["pid"].get<int64_t>()) +
                            (job.empty() ? "" : " job " + job);
  const std::string ago = Ago(t["seconds_since_beat"].get<double>());
  if (liveness == "alive")
    std::printf("trainer: alive %s, checkpoint step %lld, beat %s ago\n", where.c_str(),
                (long long)t["net_step"].get<int64_t>(), ago.c_str());
  else if (liveness == "stale")
    std::printf("trainer: STALE: its last beat %s ago, %s (gone without a word: killed, or its machine lost)\n",
                ago.c_str(), where.c_str());
  else
    std::printf("trainer: ended %s ago, %s\n", ago.c_str(), where.c_str());
}

void PrintStatus(const nlohmann::json& s) {
  std::printf("run %s: %s", s["run"].get<std::string>().c_str(), s["state"].get<std::string>().c_str());
  if (!s["reason"].get<std::string>().empty())
    std::printf(" (%s, %s ago)", s["reason"].get<std::string>().c_str(),
                Ago(run::UnixNow() - s["since"].get<double>()).c_str());
  std::printf("\n");
  for (const auto& line : s["damaged"]) std::printf("damaged: %s\n", line.get<std::string>().c_str());
  if (s.contains("checkpoint"))
    std::printf("newest checkpoint: step %lld, %.2f h of run time\n", (long long)s["checkpoint"]["step"].get<int64_t>(),
                s["checkpoint"]["hours"].get<double>());
  PrintTrainer(s["trainer"]);
  if (s.contains("slurm")) {
    auto state = [&](const char* key) {
      const std::string st = s["slurm"][key];
      return st.empty() ? std::string(" (not queued)") : " (" + st + ")";
    };
    std::printf("slurm jobs: trainer %s%s, self-play array %s%s\n", s["slurm"]["trainer"].get<std::string>().c_str(),
                state("trainer_state").c_str(), s["slurm"]["selfplay"].get<std::string>().c_str(),
                state("selfplay_state").c_str());
  }
  int counts[3] = {0, 0, 0};
  for (const auto& w : s["workers"]) {
    const std::string liveness = w["liveness"];
    ++counts[liveness == "alive" ? 0 : liveness == "stale" ? 1 : 2];
  }
  std::printf("self-play processes: %d alive, %d stale, %d ended\n", counts[0], counts[1], counts[2]);
  if (s["workers"].empty()) return;
  std::printf("  %-16s %-12s %-12s %-6s %8s %12s %10s %9s\n", "name", "host", "job", "state", "games", "positions/h",
              "net step", "last beat");
  for (const auto& w : s["workers"])
    std::printf("  %-16s %-12s %-12s %-6s %8lld %12.0f %10lld %9s\n", w["name"].get<std::string>().c_str(),
                w["host"].get<std::string>().c_str(),
                w["job"].get<std::string>().empty() ? "-" : w["job"].get<std::string>().c_str(),
                w["liveness"].get<std::string>().c_str(), (long long)w["games"].get<int64_t>(),
                w["positions_per_hour"].get<double>(), (long long)w["net_step"].get<int64_t>(),
                Ago(w["seconds_since_beat"].get<double>()).c_str());
}

// Returns how many heartbeats of the run are alive.
int AliveWorkers(const run::RunDir& run) {
  int alive = 0;
  const double now = run::UnixNow();
  for (const run::WorkerBeat& beat : run::ReadWorkerBeats(run))
    alive += run::LivenessAt(beat, now) == run::WorkerLiveness::kAlive;
  return alive;
}

}  // namespace

int RunStatusCommand(int argc, char** argv) {
  CLI::App cli{
      "Show what a run is doing: its state (running, finished, stopped), its newest checkpoint,\n"
      "its trainer, its Slurm jobs, and every self-play process that plays for it, on any machine,\n"
      "with its rate and whether its heartbeat is alive, stale (gone without a word) or ended;\n"
      "and every file of these that is damaged.",
      argv[0]};
  std::string run_dir;
  bool json = false, state_only = false;
  std::string worker;
  cli.add_option("--run", run_dir, "the run directory")->required();
  cli.add_option("--worker", worker, "print only whether the self-play process NAME is alive, stale, ended or none");
  cli.add_flag("--json", json, "print the status as one JSON object");
  cli.add_flag("--state", state_only, "print only the state: running, finished or stopped (for scripts)");
  LOAZ_PARSE(cli, argc, argv);
  const run::RunDir run = OpenRun(run_dir);
  if (!worker.empty()) {
    const std::vector<run::WorkerBeat> beats = run::ReadWorkerBeats(run);
    const auto it =
        std::find_if(beats.begin(), beats.end(), [&](const run::WorkerBeat& b) { return b.name == worker; });
    std::printf("%s\n", it == beats.end() ? "none" : run::LivenessName(run::LivenessAt(*it, run::UnixNow())));
    return 0;
  }
  if (state_only) {
    const run::RunStatus status = run::ReadRunState(run);
    if (!status.damage.empty()) std::fprintf(stderr, "loaz status: %s\n", status.damage.c_str());
    std::printf("%s\n", run::RunStateName(status.state));
    return 0;
  }
  const nlohmann::json status = StatusJson(run);
  if (json)
    std::printf("%s\n", status.dump(2).c_str());
  else
    PrintStatus(status);
  return 0;
}

int RunStop(int argc, char** argv) {
  CLI::App cli{
      "Stop a run cleanly, wherever its processes run: the trainer writes a checkpoint and ends,\n"
      "every self-play process writes the games it holds and ends, all at their next check (a few\n"
      "seconds); the run's pending Slurm jobs are cancelled. `loaz train --run DIR` or `loaz launch\n"
      "slurm --run DIR` goes on with it.",
      argv[0]};
  std::string run_dir, reason;
  double wait = 0;
  cli.add_option("--run", run_dir, "the run directory")->required();
  cli.add_option("--reason", reason, "why, for `loaz status` and the log (default: loaz stop on HOST)");
  cli.add_option("--wait", wait, "then wait up to this many seconds until no self-play heartbeat is alive")
      ->check(CLI::Range(0.0, 86400.0));
  LOAZ_PARSE(cli, argc, argv);
  const run::RunDir run = OpenRun(run_dir);
  run::WriteRunState(run, run::RunState::kStopped, reason.empty() ? "loaz stop on " + ThisHost() : reason);
  std::printf("%s: stopped; its processes end at their next check\n", run.root().c_str());
  const run::SlurmJobs jobs = run::ReadSlurmJobs(run);
  if (!jobs.trainer.empty() || !jobs.selfplay.empty()) {
    // A pending job would find the run stopped and end at once; cancelling
    // it spares the queue. Running jobs end cleanly by themselves.
    const std::string command = "scancel --state=PENDING " + run::ShellQuoted(jobs.trainer) + " " +
                                run::ShellQuoted(jobs.selfplay) + " >/dev/null 2>&1";
    if (std::system(command.c_str()) == 0)
      std::printf("cancelled the pending jobs of %s %s\n", jobs.trainer.c_str(), jobs.selfplay.c_str());
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait);
  int alive = AliveWorkers(run);
  while (wait > 0 && alive > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    alive = AliveWorkers(run);
  }
  if (wait > 0) {
    std::printf("%d self-play processes still alive\n", alive);
    return alive == 0 ? 0 : 1;
  }
  return 0;
}

}  // namespace loa::app
