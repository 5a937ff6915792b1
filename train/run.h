#pragma once
// The orchestration of a training run: opening or resuming its directory,
// and running self-play, the trainer and evaluation together (`loaz train`)
// or apart (`loaz selfplay`, `loaz trainer`) over one run directory.

#include <string>
#include <vector>

#include "train/config.h"
#include "train/run_dir.h"

namespace loa::train {

// A run directory opened for work, with its config.
struct OpenedRun {
  Config config;
  RunDir dir;
  bool resumed = false;  // the directory held a run already
};

// Opens the run of a config file: creates run.directory/run.name and writes
// the resolved config there; when the directory already holds a run with
// the same resolved config, resumes it. Throws Error when it holds a run
// with a different config (naming the command that resumes it).
OpenedRun OpenRunFromConfig(const std::string& config_path, const std::vector<std::string>& overrides);

// Opens an existing run directory for resuming or for a separate process:
// reads DIR/config.yaml with overrides on top, and rewrites it with them
// when `persist` (the trainer's changes; a self-play process's are its
// own). Throws Error when DIR holds no run.
OpenedRun OpenRunDirectory(const std::string& dir, const std::vector<std::string>& overrides, bool persist);

// Returns the run time in hours behind checkpoint `step` (0 when its
// header cannot be read).
double CheckpointHours(const RunDir& dir, int64_t step);

// What one process of the run does.
struct RunParts {
  bool selfplay = true;                // self-play workers
  bool trainer = true;                 // the trainer loop, with evaluation every eval.every_checkpoints
  std::string selfplay_name = "main";  // the writer name of this process's shards
};

// Runs the parts until the run's step or time limit (then evaluates the
// last checkpoint if it is due, and exports it to DIR/net.safetensors), a
// SIGINT or SIGTERM, or an error. Logs to DIR/log.txt and the terminal;
// metrics to DIR/metrics.jsonl. Returns the process exit code (0 when the
// run finished or was stopped cleanly).
int RunTraining(const OpenedRun& run, const RunParts& parts);

// Returns the path of the export of a run (DIR/net.safetensors).
std::string RunExportPath(const RunDir& dir);

// Returns the path of checkpoint `step` of a run, or of its newest readable
// checkpoint when step < 0. Throws Error naming the run when there is none.
std::string ResolveRunCheckpoint(const RunDir& dir, int64_t step);

// Writes the export of checkpoint `step` (the newest readable one when
// step < 0) of a run to path; returns the step exported. Throws Error when
// the run has no such checkpoint.
int64_t ExportRunCheckpoint(const RunDir& dir, int64_t step, const std::string& path);

}  // namespace loa::train
