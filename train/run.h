#pragma once
// The orchestration of a training run: opening or resuming its directory,
// and running self-play, the trainer and evaluation together (`loaz train`)
// or apart (`loaz selfplay`, `loaz trainer`) over one run directory.

#include <cstdint>
#include <string>
#include <vector>

#include "net/export.h"
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

// Returns the steps of the `count` newest checkpoints of a run from
// min_step up to step (the newest readable one when step < 0), oldest
// first: fewer when fewer exist. Throws Error naming the run when it has no
// checkpoint of step.
std::vector<int64_t> CheckpointsUpTo(const RunDir& dir, int64_t step, int count, int64_t min_step = 0);

// Returns the export of a run's checkpoints `steps`: the one as it is, or
// the mean of several (stochastic weight averaging, AverageNets). Throws
// Error when steps is empty or a checkpoint cannot be read.
ExportedNet ExportRunNet(const RunDir& dir, const std::vector<int64_t>& steps);

// The steps the export at a run's end averages: up to `average` newest
// checkpoints up to `last`, from the run's second half (never its first
// minutes' nets, in a run of few checkpoints).
std::vector<int64_t> FinalExportSteps(const RunDir& dir, int64_t last, int average);

}  // namespace loa::train
