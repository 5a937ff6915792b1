#pragma once
// The orchestration of a training run: opening or resuming its directory,
// and running self-play, the trainer and evaluation together (`loaz train`)
// or apart (`loaz selfplay`, `loaz trainer`) over one run directory.

#include <cstdint>
#include <string>
#include <vector>

#include "net/export.h"
#include "run/config.h"
#include "run/run_dir.h"

namespace loa::train {

// A run directory opened for work, with its config.
struct OpenedRun {
  run::Config config;
  run::RunDir dir;
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

// What one process of the run does.
struct RunParts {
  bool selfplay = true;                // self-play workers
  bool trainer = true;                 // the trainer loop, with evaluation every eval.every_checkpoints
  std::string selfplay_name = "main";  // the writer name of this process's shards
  // A trainer that ends at once when the run has ended (finished or
  // stopped) instead of setting it going again: a cluster job's, which a
  // requeue may start after `loaz stop`.
  bool unless_ended = false;
};

// Runs the parts until the run's step or time limit (then evaluates the
// last checkpoint if it is due, and exports it to DIR/net.safetensors), a
// SIGINT or SIGTERM, or an error. Logs to DIR/log.txt and the terminal;
// metrics to DIR/metrics.jsonl. Returns the process exit code (0 when the
// run finished or was stopped cleanly).
int RunTraining(const OpenedRun& run, const RunParts& parts);

// Returns the export of a run's checkpoints `steps`: the one as it is, or
// the mean of several (stochastic weight averaging, AverageNets). Throws
// Error when steps is empty or a checkpoint cannot be read.
ExportedNet ExportRunNet(const run::RunDir& dir, const std::vector<int64_t>& steps);

}  // namespace loa::train
