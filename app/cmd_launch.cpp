// loaz launch slurm: a run on a Slurm cluster. Writes the run's batch scripts
// into DIR/cluster/ and submits them: one trainer job and a job array of
// self-play workers over the run directory (docs/CLUSTER.md).

#include "app/cli.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <unistd.h>

#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"
#include "play/player.h"
#include "run/open_run.h"
#include "run/run_state.h"
#include "run/slurm.h"

namespace loa::app {
namespace {

// Returns the absolute path of the loaz binary beside this one.
std::string ThisLoaz() {
  const std::string path = ThisExecutable();
  if (path.empty()) throw Error("cannot read /proc/self/exe: set cluster.loaz to the loaz binary the jobs run");
  return path.substr(0, path.rfind('/') + 1) + "loaz";
}

// Returns config as the jobs run it: a cluster.image that is a file or a
// folder (Charliecloud's, Apptainer's; not Podman's image names) made
// absolute, as the jobs start elsewhere. Throws Error when it is not there.
run::Config AsJobsRunIt(run::Config config) {
  std::string& image = config.cluster.image;
  if (image.empty() || config.cluster.runtime == "podman") return config;
  std::error_code error;
  if (!std::filesystem::exists(image, error))
    throw Error("cluster.image: " + image + ": no such image (scripts/image.sh makes one; docs/CLUSTER.md)");
  image = std::filesystem::absolute(image).string();
  return config;
}

// Runs a shell command; returns its exit status and its output (both
// streams), trailing newlines cut. Throws Error when it cannot start.
std::pair<int, std::string> Run(const std::string& command) {
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw Error("cannot run " + command);
  std::string out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  const int status = ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return {status, out};
}

// Throws Error when jobs of the run's last launch are still queued or
// running: new workers of the same names would wait for them forever.
void CheckNoJobsLeft(const run::RunDir& dir) {
  const run::SlurmJobs jobs = run::ReadSlurmJobs(dir);
  std::string ids = jobs.trainer;
  if (!jobs.selfplay.empty()) ids += (ids.empty() ? "" : ",") + jobs.selfplay;
  if (ids.empty()) return;
  const auto [status, out] = Run("squeue -h -o %i -j " + run::ShellQuoted(ids));
  if (status == 0 && !out.empty())
    throw Error(dir.root() + ": jobs of its last launch are still queued or running (" + ids + "); `loaz stop --run " +
                dir.root() + "` ends them, then launch again");
}

// Runs `sbatch --parsable SCRIPT` and returns the job id it prints; throws
// Error with sbatch's message.
std::string Submit(const std::string& script) {
  const auto [status, out] = Run("sbatch --parsable " + run::ShellQuoted(script));
  if (status != 0 || out.empty() || out.find_first_not_of("0123456789;") != std::string::npos)
    throw Error("sbatch " + script + " failed: " + Excerpt(out, 300));
  return out.substr(0, out.find(';'));  // "ID;CLUSTER" on a federation
}

}  // namespace

int RunLaunch(int argc, char** argv) {
  CLI::App cli{
      "Put a run on a cluster: `loaz launch slurm CONFIG` (or `--run DIR` to go on with a run) writes\n"
      "the run's batch scripts into DIR/cluster/ and submits one trainer job and a job array of\n"
      "self-play workers (cluster.workers), all over DIR on a filesystem every node shares. Jobs\n"
      "end by themselves when the run ends; `loaz status --run DIR` shows them, `loaz stop --run\n"
      "DIR` ends them. The cluster section of the config (`loaz config`) sets partition, account,\n"
      "time, cores and gres; --dry-run prints the scripts and submits nothing (docs/CLUSTER.md).",
      argv[0]};
  std::string scheduler, config_path, run_dir, partition, account, time, qos;
  std::vector<std::string> overrides;
  int workers = 0;
  bool dry_run = false;
  cli.add_option("SCHEDULER", scheduler, "the batch system: slurm")->required()->check(CLI::IsMember({"slurm"}));
  cli.add_option("CONFIG", config_path, "YAML config of a new run");
  cli.add_option("--run", run_dir, "go on with the run in this directory instead");
  cli.add_option("--workers", workers, "self-play array tasks (cluster.workers)")->check(CLI::Range(1, 100000));
  cli.add_option("--partition", partition, "cluster.partition");
  cli.add_option("--account", account, "cluster.account");
  cli.add_option("--time", time, "cluster.time: each job's time limit, e.g. 1-00:00:00");
  cli.add_option("--qos", qos, "cluster.qos");
  cli.add_option("--set", overrides, "override a config value: section.key=value (repeatable; saved)")
      ->allow_extra_args(false);
  cli.add_flag("--dry-run", dry_run, "print the scripts; write and submit nothing");
  LOAZ_PARSE(cli, argc, argv);
  if (config_path.empty() == run_dir.empty()) throw UsageError("give either CONFIG or --run DIR (see --help)");
  if (workers > 0) overrides.push_back("cluster.workers=" + std::to_string(workers));
  for (const auto& [key, value] : {std::pair<const char*, std::string>{"partition", partition},
                                   {"account", account},
                                   {"time", time},
                                   {"qos", qos}})
    if (!value.empty()) overrides.push_back(std::string("cluster.") + key + "=" + value);

  // The run as it would be, checked before anything is written.
  const run::Config config =
      AsJobsRunIt(run_dir.empty() ? run::LoadConfig(config_path, overrides)
                                  : run::LoadConfig(run::RunDir(run_dir).ConfigPath(), overrides));
  // The opponents' specs read, their players not built: the login node
  // loads no net and starts no engine (the evaluation job builds them).
  const run::ConfigCheck check = [](const run::Config& c) {
    CheckPlayerSpecs(c.eval.opponents, "eval.opponents", false);
  };
  check(config);
  if (dry_run) {
    const std::string dir = std::filesystem::absolute(run_dir.empty() ? config.RunDirectory() : run_dir).string();
    const run::SlurmScripts scripts = run::MakeSlurmScripts(config, dir, ThisLoaz());
    std::printf("# %s/cluster/trainer.sbatch\n%s\n# %s/cluster/selfplay.sbatch\n%s", dir.c_str(),
                scripts.trainer.c_str(), dir.c_str(), scripts.selfplay.c_str());
    return 0;
  }
  // Before anything is written: a run whose jobs still live is not launched twice.
  CheckNoJobsLeft(run::RunDir(run_dir.empty() ? config.RunDirectory() : run_dir));
  const run::OpenedRun opened = run_dir.empty() ? run::OpenRunFromConfig(config_path, overrides, check)
                                                : run::OpenRunDirectory(run_dir, overrides, true, check);
  const run::RunDir dir(std::filesystem::absolute(opened.dir.root()).string());
  const run::SlurmScripts scripts = run::MakeSlurmScripts(AsJobsRunIt(opened.config), dir.root(), ThisLoaz());
  std::filesystem::create_directories(dir.ClusterLogDir());
  WriteFileAtomic(dir.ClusterScriptPath("trainer"), scripts.trainer);
  WriteFileAtomic(dir.ClusterScriptPath("selfplay"), scripts.selfplay);
  // The jobs about to start find the run going, whatever ended it before.
  run::WriteRunState(dir, run::RunState::kRunning, "loaz launch slurm on " + ThisHost());
  run::SlurmJobs jobs;
  jobs.selfplay = Submit(dir.ClusterScriptPath("selfplay"));
  // The trainer's keeper reads the workers' array from cluster/jobs.
  run::WriteSlurmJobs(dir, jobs);
  jobs.trainer = Submit(dir.ClusterScriptPath("trainer"));
  run::WriteSlurmJobs(dir, jobs);
  std::printf(
      "run %s on Slurm: trainer job %s, self-play array %s (%d tasks)\n"
      "  watch:  loaz status --run %s   (squeue -j %s,%s; tail -f %s)\n"
      "  stop:   loaz stop --run %s      (or scancel %s %s)\n"
      "  resume: loaz launch slurm --run %s\n",
      dir.root().c_str(), jobs.trainer.c_str(), jobs.selfplay.c_str(), opened.config.cluster.workers,
      opened.dir.root().c_str(), jobs.trainer.c_str(), jobs.selfplay.c_str(), dir.LogPath().c_str(),
      opened.dir.root().c_str(), jobs.trainer.c_str(), jobs.selfplay.c_str(), opened.dir.root().c_str());
  return 0;
}

}  // namespace loa::app
