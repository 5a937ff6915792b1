#pragma once
// The checkpoints of a run as a reader sees them without LibTorch: each
// checkpoints/ckpt_STEP.pt has a header beside it, ckpt_STEP.json (its step,
// its counters, its run time), which the trainer writes before the
// checkpoint itself, so that every checkpoint has one (docs/FORMATS.md).
// Listing a run's checkpoints and their hours, resolving "the newest" and
// choosing what an export averages live here; loading one is train/'s.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "run/run_dir.h"

namespace loa::run {

// The training state's counter of the run time behind a checkpoint.
inline constexpr char kElapsedMsCounter[] = "elapsed_ms";

// What a checkpoint says of itself, beside it in ckpt_STEP.json.
struct CheckpointHeader {
  int64_t step = 0;
  std::map<std::string, int64_t> counters;  // the training state's (games, samples, elapsed_ms, ...)
  std::string architecture;                 // the net's short name, e.g. "4x32"
  std::string config;                       // the run's config.yaml as it was (a copy that restores it)

  // Returns the run time behind the checkpoint in hours (0 without the counter).
  double Hours() const;
};

// Writes the header of checkpoint header.step atomically (temporary file
// and rename), replacing one there. Throws IoError.
void WriteCheckpointHeader(const RunDir& dir, const CheckpointHeader& header);

// Returns the header of checkpoint `step`, or nothing when it has none (a
// run written before headers, until its trainer resumes) or it is not a
// header (named in no error: callers fall back).
std::optional<CheckpointHeader> ReadCheckpointHeader(const RunDir& dir, int64_t step);
// The same from the header's text.
std::optional<CheckpointHeader> ParseCheckpointHeader(const std::string& text, int64_t step);

// Returns the run time in hours behind checkpoint `step` (0 when it has no
// header).
double CheckpointHours(const RunDir& dir, int64_t step);

// Returns the path of checkpoint `step` of a run, or of its newest
// checkpoint when step < 0. Throws Error naming the run when there is none.
std::string ResolveRunCheckpoint(const RunDir& dir, int64_t step);

// Returns the steps of the `count` newest checkpoints of a run from
// min_step up to step (the newest when step < 0), oldest first: fewer when
// fewer exist. Throws Error naming the run when it has no checkpoint of
// step.
std::vector<int64_t> CheckpointsUpTo(const RunDir& dir, int64_t step, int count, int64_t min_step = 0);

// The steps the export at a run's end averages: up to `average` newest
// checkpoints up to `last`, from the run's second half (never its first
// minutes' nets, in a run of few checkpoints).
std::vector<int64_t> FinalExportSteps(const RunDir& dir, int64_t last, int average);

// Returns the name of checkpoint `step` in results and tables: "step N"
// (the page names a run's: "RUN step N").
std::string CheckpointName(int64_t step);

// Returns the step of a name CheckpointName wrote, or nothing for any other
// name (a ladder player's spec).
std::optional<int64_t> CheckpointStep(const std::string& name);

// A run's checkpoint among the players of the server: "RUN step N".
struct RunCheckpoint {
  std::string run;
  int64_t step = 0;
};
std::string RunCheckpointName(const RunCheckpoint& checkpoint);

// Returns the run and step of a name RunCheckpointName wrote, or nothing for
// any other name. The name is split by hand, no regex: it may be request data.
std::optional<RunCheckpoint> ParseRunCheckpointName(const std::string& name);

}  // namespace loa::run
