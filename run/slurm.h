#pragma once
// A run on a Slurm cluster (docs/CLUSTER.md): the batch scripts that
// `loaz launch slurm` writes into the run's cluster/ folder and submits,
// one trainer job and one job array of self-play workers, all over the run
// directory on a filesystem every node shares.

#include <string>
#include <vector>

#include "run/config.h"
#include "run/run_dir.h"

namespace loa::run {

// Inside an image of scripts/image.sh (cluster.image): where a job's loaz
// sees the run directory, and the loaz it runs unless cluster.loaz says.
inline constexpr const char* kImageRunDir = "/mnt/run";
inline constexpr const char* kImageLoaz = "/usr/local/bin/loaz";

// The scripts of one launch, each a whole sbatch file.
struct SlurmScripts {
  std::string trainer;   // cluster/trainer.sbatch: `loaz trainer` and the keeper of the workers' array
  std::string selfplay;  // cluster/selfplay.sbatch: `loaz selfplay --name aTASK`, one per array task
};

// Returns the scripts of config's run in `dir` (an absolute path), whose
// jobs run `loaz` (an absolute path; cluster.loaz or, with cluster.image,
// the image's own instead). Pure text: writes and runs nothing.
SlurmScripts MakeSlurmScripts(const Config& config, const std::string& dir, const std::string& loaz);

// Returns s quoted for the shell: 'text', each ' in it written '\''.
std::string ShellQuoted(const std::string& s);

// The jobs of the run's last launch, as cluster/jobs lists them.
struct SlurmJobs {
  std::string trainer;   // job id
  std::string selfplay;  // the array's job id
};

// Writes cluster/jobs ("trainer ID" and "selfplay ID" lines) atomically.
void WriteSlurmJobs(const RunDir& dir, const SlurmJobs& jobs);

// Returns the jobs of cluster/jobs; empty ids when the run was never
// launched. A file that does not read as a job list (garbled, a folder)
// gives empty ids and, when damage is not null, a line naming its path.
SlurmJobs ReadSlurmJobs(const RunDir& dir, std::string* damage = nullptr);

// Returns what Slurm says of a job (or an array's tasks), from squeue:
// "RUNNING", "PENDING", "2 RUNNING, 1 PENDING", or "" when it is no longer
// queued or squeue does not answer within 5 s.
std::string SlurmJobState(const std::string& job);

}  // namespace loa::run
