#pragma once
// The checkpoints of a run: restore the newest readable one (falling back,
// with a warning, past corrupt ones), save and prune, and the queries of
// the run's checkpoints that self-play, evaluation and the commands share.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "net/checkpoint.h"
#include "run/run_dir.h"
#include "train/logger.h"

namespace loa::train {

// The training state's counter of the run time behind a checkpoint.
inline constexpr char kElapsedMsCounter[] = "elapsed_ms";

// Loads the newest checkpoint of run that loads into model (and optimizer
// and the weight average, each when not null: see LoadCheckpoint); each one that fails (truncated, checksum,
// non-finite) is named in a warning, the one before it tried, and once one loads, the damaged newer ones are moved to
// checkpoints/damaged/. Returns its training state, or nothing when the run has no checkpoint at all. Throws Error when
// a checkpoint has another architecture than model, or when the run has checkpoints and none loads (a fresh start would
// lose them).
std::optional<TrainingState> RestoreNewest(const RunDir& run, LoaNet& model, torch::optim::Optimizer* optimizer,
                                           Logger& log, LoaNet* average = nullptr);

// Returns the path of the newest checkpoint whose header reads, newer than
// `after_step` (-1: any), or "" when none; warns about each unreadable one
// once per call.
std::string NewestReadableCheckpoint(const RunDir& run, int64_t after_step, Logger* log);

// Deletes the oldest checkpoints beyond the newest `keep` (0: keep all).
void PruneCheckpoints(const RunDir& run, int keep);

// Returns the run time in hours behind checkpoint `step` (0 when its
// header cannot be read).
double CheckpointHours(const RunDir& dir, int64_t step);

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

}  // namespace loa::train
