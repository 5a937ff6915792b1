#pragma once
// The orchestration of a training run: opening or resuming its directory,
// and running self-play, the trainer and evaluation together (`loaz train`)
// or apart (`loaz selfplay`, `loaz trainer`) over one run directory.

#include <cstdint>
#include <string>
#include <vector>

#include "net/export.h"
#include "run/config.h"
#include "run/open_run.h"
#include "run/run_dir.h"

namespace loa::train {

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
int RunTraining(const run::OpenedRun& run, const RunParts& parts);

// Returns the export of a run's checkpoints `steps`: the one as it is, or
// the mean of several (stochastic weight averaging, AverageNets). Throws
// Error when steps is empty or a checkpoint cannot be read.
ExportedNet ExportRunNet(const run::RunDir& dir, const std::vector<int64_t>& steps);

}  // namespace loa::train
