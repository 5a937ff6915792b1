#include "run/slurm.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>

#include "core/error.h"
#include "core/file_util.h"
#include "run/workers.h"

namespace loa::run {
namespace {

// The lines that set `loaz`, the command every loaz of a job runs (an
// array), and `loaz_run`, the run directory as that loaz sees it: the
// binary itself and $run, or the image's binary under its runtime with $run
// bound at kImageRunDir.
std::string LoazCommand(const ClusterConfig& c) {
  if (c.image.empty()) return "loaz=(" + ShellQuoted(c.loaz) + ")\nloaz_run=$run\n";
  std::string options;
  for (const std::string& option : c.runtime_options) options += " " + ShellQuoted(option);
  const std::string image = ShellQuoted(c.image), bind = std::string("\"$run:") + kImageRunDir + "\"";
  std::ostringstream out;
  out << "# Every loaz runs in the image " << image << " (" << c.runtime << "), the run directory\n"
      << "# bound at " << kImageRunDir << " (docs/CLUSTER.md).\n";
  if (c.runtime == "charliecloud") {
    out << "export USER=${USER:-$(id -un)}  # ch-run asks for it\n";
    out << "loaz=(ch-run --bind=" << bind << " --cd=" << kImageRunDir << options << " " << image << " -- ";
  } else if (c.runtime == "podman") {
    out << "loaz=(podman run --rm --network=host --security-opt=label=disable --env=LOAZ_HOST --volume=" << bind
        << " --workdir=" << kImageRunDir << options << " " << image << " ";
  } else {  // apptainer
    out << "loaz=(apptainer exec --bind=" << bind << " --pwd=" << kImageRunDir << options << " " << image << " ";
  }
  out << ShellQuoted(c.loaz.empty() ? kImageLoaz : c.loaz) << ")\n";
  out << "loaz_run=" << kImageRunDir << "\n";
  return out.str();
}

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
  out << LoazCommand(c);
  return out.str();
}

// The part of every script that runs COMMAND (a loaz command line in the
// background) and ends it cleanly: SIGTERM (scancel, preemption) is passed
// on; SIGUSR1, signal_seconds before the time limit, ends it, and with
// requeue_self (the trainer) requeues the job unless the run has ended (a
// worker's task is requeued by the trainer's keeper). With requeue_self, a
// command that fails (killed by SIGKILL: the OOM killer, a segfault, a
// lost GPU) runs again while the run goes on, c.trainer_restarts times,
// after its heartbeat has gone stale (so that two trainers never train at
// once, and `loaz status` shows the death), the wait doubling to 5 min;
// then the run is stopped, saying why.
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
  if [ "$("${loaz[@]}" status --run "$loaz_run" --state)" = running ]; then
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
ending=
trap 'ending=1; kill -TERM "$child" 2>/dev/null' TERM
)SH";
  // wait returns early when a signal's trap runs: wait again until the child is gone.
  const std::string run_child = command + " &\nchild=$!\n" +
                                "while wait \"$child\"; status=$?; [ \"$status\" -gt 128 ] && kill -0 \"$child\" "
                                "2>/dev/null; do :; done\n";
  if (!requeue_self) return out.str() + run_child;
  std::string indented;  // run_child inside the loop
  for (std::size_t start = 0, end; start < run_child.size(); start = end + 1) {
    end = run_child.find('\n', start);
    indented += "  " + run_child.substr(start, end - start + 1);
  }
  out << "restarts=0\nSTALE=" << int(kStaleSeconds) + 5 << "\nwhile :; do\n" << indented;
  out << R"SH(  [ "$status" -ne 0 ] && [ -z "$ending" ] || break
  [ "$("${loaz[@]}" status --run "$loaz_run" --state)" = running ] || break
  if [ "$restarts" -ge )SH"
      << c.trainer_restarts << R"SH( ]; then
    echo "$(date -Is) the trainer failed again (status $status) after $restarts restarts: stopping the run"
    "${loaz[@]}" stop --run "$loaz_run" --reason "the trainer failed $((restarts + 1)) times, the last on $LOAZ_HOST with status $status"
    break
  fi
  restarts=$((restarts + 1))
  delay=$((STALE << (restarts - 1)))
  [ "$delay" -le 300 ] || delay=300
  echo "$(date -Is) the trainer ended with status $status: running it again in $delay s (restart $restarts of )SH"
      << c.trainer_restarts << R"SH()"
  sleep "$delay" &
  wait $!
  [ -z "$ending" ] || break
done
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
  if (c.loaz.empty() && c.image.empty()) c.loaz = loaz;
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
    [ "$("${loaz[@]}" status --run "$loaz_run" --state)" = running ] || continue
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
  t << Supervised(c, "$SLURM_JOB_ID", "\"${loaz[@]}\" trainer --run \"$loaz_run\" --unless-ended", true);
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
                  "\"${loaz[@]}\" selfplay --run \"$loaz_run\" --name \"a$SLURM_ARRAY_TASK_ID\"", false);
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

SlurmJobs ReadSlurmJobs(const RunDir& dir, std::string* damage) {
  SlurmJobs jobs;
  const std::string path = dir.ClusterJobsPath();
  const std::optional<std::string> text = ReadFileUnlessDamaged(path, damage);
  if (!text) return jobs;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string part, id, extra;
    const bool job_id = static_cast<bool>(fields >> part >> id) && !(fields >> extra) &&
                        id.find_first_not_of("0123456789_") == std::string::npos;
    if (job_id && part == "trainer")
      jobs.trainer = id;
    else if (job_id && part == "selfplay")
      jobs.selfplay = id;
    else if (!line.empty()) {
      if (damage) *damage = path + ": not a job list (the line '" + line.substr(0, 60) + "')";
      return {};
    }
  }
  return jobs;
}

std::string SlurmJobState(const std::string& job) {
  if (job.empty() || job.find_first_not_of("0123456789_") != std::string::npos) return "";
  const std::string command = "timeout 5 squeue -h -r -j " + job + " -o %T 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return "";
  std::map<std::string, int> count;
  char line[128];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string state(line);
    while (!state.empty() && std::isspace(static_cast<unsigned char>(state.back()))) state.pop_back();
    if (!state.empty()) ++count[state];
  }
  ::pclose(pipe);
  std::string out;
  for (const auto& [state, n] : count)
    out += (out.empty() ? "" : ", ") + (count.size() == 1 && n == 1 ? state : std::to_string(n) + " " + state);
  return out;
}

}  // namespace loa::run
