#include "run/slurm.h"

#include <filesystem>
#include <sstream>
#include <system_error>

#include "core/error.h"
#include "core/file_util.h"

namespace loa::run {
namespace {

// The #SBATCH lines every job of the run shares.
std::string CommonOptions(const ClusterConfig& c, const std::string& dir) {
  std::ostringstream out;
  out << "#SBATCH --requeue\n";
  out << "#SBATCH --signal=B:USR1@" << c.signal_seconds << "\n";
  out << "#SBATCH --open-mode=append\n";
  if (!c.partition.empty()) out << "#SBATCH --partition=" << c.partition << "\n";
  if (!c.account.empty()) out << "#SBATCH --account=" << c.account << "\n";
  if (!c.qos.empty()) out << "#SBATCH --qos=" << c.qos << "\n";
  if (!c.time.empty()) out << "#SBATCH --time=" << c.time << "\n";
  for (const std::string& line : c.sbatch_lines) out << "#SBATCH " << line << "\n";
  out << "\nset -u\n";
  out << "run=" << ShellQuoted(dir) << "\n";
  out << "loaz=" << ShellQuoted(c.loaz) << "\n";
  return out.str();
}

// The part of every script that runs COMMAND (a loaz command line in the
// background) and ends it cleanly: SIGTERM (scancel, preemption) is passed
// on; SIGUSR1, signal_seconds before the time limit, ends it, and with
// requeue_self (the trainer) requeues the job unless the run has ended (a
// worker's task is requeued by the trainer's keeper).
std::string Supervised(const ClusterConfig& c, const std::string& job, const std::string& command, bool requeue_self) {
  std::ostringstream out;
  out << "job=" << job << "\n";
  out << "# Temporary files and heartbeats name the node, not the machine's host name.\n";
  out << "export LOAZ_HOST=${SLURMD_NODENAME:-$(hostname -s)}\n";
  if (!c.setup.empty()) out << c.setup << "\n";
  out << "child=\n";
  if (requeue_self)
    out << R"SH(# Near the time limit: end cleanly, and come back unless the run has ended.
on_time_limit() {
  kill -TERM "$child" 2>/dev/null
  wait "$child"
  if [ "$("$loaz" status --run "$run" --state)" = running ]; then
    echo "$(date -Is) time limit near: requeueing $job"
    scontrol requeue "$job"
  fi
  exit 0
}
)SH";
  else
    out << R"SH(# Near the time limit: end cleanly; the trainer's keeper requeues this task.
on_time_limit() {
  kill -TERM "$child" 2>/dev/null
  wait "$child"
  exit 0
}
)SH";
  out << R"SH(trap on_time_limit USR1
trap 'kill -TERM "$child" 2>/dev/null' TERM
)SH";
  out << command << " &\n";
  out << R"SH(child=$!
# wait returns early when a signal's trap runs: wait again until the child is gone.
while wait "$child"; status=$?; [ "$status" -gt 128 ] && kill -0 "$child" 2>/dev/null; do :; done
)SH";
  return out.str();
}

}  // namespace

std::string ShellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

SlurmScripts MakeSlurmScripts(const Config& config, const std::string& dir, const std::string& loaz) {
  ClusterConfig c = config.cluster;
  if (c.loaz.empty()) c.loaz = loaz;
  const RunDir run(dir);
  const std::string name = config.run.name;
  const int trainer_cpus = c.trainer_cpus > 0 ? c.trainer_cpus : config.train.threads + config.eval.threads;
  const int worker_cpus = c.worker_cpus > 0 ? c.worker_cpus : config.selfplay.workers;
  std::string gres = c.trainer_gres;
  if (gres.empty() && config.run.device.rfind("cuda", 0) == 0) gres = "gpu:1";

  SlurmScripts scripts;
  std::ostringstream t;
  t << "#!/bin/bash\n";
  t << "# The trainer of run " << name << " (with its in-run evaluation), and the keeper of\n";
  t << "# its self-play workers' array: written by `loaz launch slurm`; docs/CLUSTER.md.\n";
  t << "#SBATCH --job-name=loaz-" << name << "-trainer\n";
  t << "#SBATCH --cpus-per-task=" << trainer_cpus << "\n";
  if (!gres.empty()) t << "#SBATCH --gres=" << gres << "\n";
  t << "#SBATCH --output=" << run.ClusterLogDir() << "/trainer-%j.out\n";
  t << CommonOptions(c, dir);
  t << R"SH(
# Keeps the workers' array whole while the run goes on: every 10 s, a task
# that has ended (killed, cancelled, failed, at its time limit, its node
# lost) is requeued, at most 50 times a task. Once the run has ended
# (finished, or loaz stop) nothing is requeued, and the keeper ends with
# the trainer.
keep_workers() {
  while sleep 10; do
    workers=$(awk '$1 == "selfplay" {print $2}' ")SH"
    << run.ClusterJobsPath() << R"SH(" 2>/dev/null)
    [ -n "$workers" ] || continue
    [ "$("$loaz" status --run "$run" --state)" = running ] || continue
    for task in $(squeue -h -r -j "$workers" -t COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,BOOT_FAIL,OUT_OF_MEMORY,PREEMPTED -o %i 2>/dev/null); do
      restarts=$(scontrol show job "$task" | grep -o 'Restarts=[0-9]*' | cut -d= -f2)
      [ "${restarts:-0}" -lt 50 ] || continue
      scontrol requeue "$task" && echo "$(date -Is) requeued the worker $task"
    done
  done
}
keep_workers &
keeper=$!
)SH";
  t << Supervised(c, "$SLURM_JOB_ID", "\"$loaz\" trainer --run \"$run\" --unless-ended", true);
  t << "kill \"$keeper\" 2>/dev/null\nexit \"$status\"\n";
  scripts.trainer = t.str();

  std::ostringstream s;
  s << "#!/bin/bash\n";
  s << "# The self-play workers of run " << name << ": array task K runs `loaz selfplay` as\n";
  s << "# aK until the run ends. Written by `loaz launch slurm`; docs/CLUSTER.md.\n";
  s << "#SBATCH --job-name=loaz-" << name << "-selfplay\n";
  s << "#SBATCH --array=0-" << c.workers - 1 << "\n";
  s << "#SBATCH --cpus-per-task=" << worker_cpus << "\n";
  s << "#SBATCH --output=" << run.ClusterLogDir() << "/selfplay-%A_%a.out\n";
  s << CommonOptions(c, dir);
  s << Supervised(c, "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}",
                  "\"$loaz\" selfplay --run \"$run\" --name \"a$SLURM_ARRAY_TASK_ID\"", false);
  s << "exit \"$status\"\n";
  scripts.selfplay = s.str();
  return scripts;
}

void WriteSlurmJobs(const RunDir& dir, const SlurmJobs& jobs) {
  std::string text;
  if (!jobs.trainer.empty()) text += "trainer " + jobs.trainer + "\n";
  if (!jobs.selfplay.empty()) text += "selfplay " + jobs.selfplay + "\n";
  std::error_code error;
  std::filesystem::create_directories(dir.ClusterDir(), error);
  if (error) throw IoError(dir.ClusterDir() + ": cannot create folder: " + error.message());
  WriteFileAtomic(dir.ClusterJobsPath(), text);
}

SlurmJobs ReadSlurmJobs(const RunDir& dir) {
  SlurmJobs jobs;
  std::istringstream in(ReadFileIfAny(dir.ClusterJobsPath(), kMaxTextBytes).value_or(""));
  std::string part, id;
  while (in >> part >> id) {
    if (part == "trainer") jobs.trainer = id;
    if (part == "selfplay") jobs.selfplay = id;
  }
  return jobs;
}

}  // namespace loa::run
