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
#include "run/checkpoints.h"
#include "run/logger.h"
#include "run/run_dir.h"

namespace loa::train {

// Loads the newest checkpoint of run that loads into model (and optimizer
// and the weight average, each when not null: see LoadCheckpoint); each one that fails (truncated, checksum,
// non-finite) is named in a warning, the one before it tried, and once one loads, the damaged newer ones are moved to
// checkpoints/damaged/. Returns its training state, or nothing when the run has no checkpoint at all. Throws Error when
// a checkpoint has another architecture than model, or when the run has checkpoints and none loads (a fresh start would
// lose them).
std::optional<TrainingState> RestoreNewest(const run::RunDir& run, LoaNet& model, torch::optim::Optimizer* optimizer,
                                           run::Logger& log, LoaNet* average = nullptr);

// Returns the path of the newest checkpoint whose header reads, newer than
// `after_step` (-1: any), or "" when none; warns about each unreadable one
// once per call.
std::string NewestReadableCheckpoint(const run::RunDir& run, int64_t after_step, run::Logger* log);

// Deletes the oldest checkpoints (and their headers) beyond the newest `keep` (0: keep all).
void PruneCheckpoints(const run::RunDir& run, int keep);

// Writes the header (run/checkpoints.h) of each checkpoint of run that has
// none, read from the checkpoint: a run written before headers becomes
// readable without LibTorch. One that cannot be read is left without and
// named in a warning.
void WriteMissingCheckpointHeaders(const run::RunDir& run, run::Logger* log);

// Returns the path of checkpoint `step` of a run (run::ResolveRunCheckpoint),
// or of its newest one that LibTorch reads when step < 0. Throws Error
// naming the run when there is none.
std::string ResolveReadableCheckpoint(const run::RunDir& run, int64_t step);

// Returns the header of a checkpoint of a run from its training state.
run::CheckpointHeader HeaderOf(const TrainingState& state, const NetConfig& config);

}  // namespace loa::train
