#pragma once
// The checkpoints of a run: restore the newest readable one (falling back,
// with a warning, past corrupt ones), save and prune.

#include <cstdint>
#include <optional>
#include <string>

#include <torch/torch.h>

#include "net/checkpoint.h"
#include "train/logger.h"
#include "train/run_dir.h"

namespace loa::train {

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

}  // namespace loa::train
