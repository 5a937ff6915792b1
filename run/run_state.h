#pragma once
// Whether a run goes on: state.json in the run directory, which every
// process of a run (the trainer, the self-play workers on any machine, the
// jobs of a cluster) reads between games or steps (docs/CLUSTER.md).
//
//   running   the trainer trains, or will: the state a start or resume writes
//   finished  the trainer reached the run's budget: workers end, exit 0
//   stopped   `loaz stop` asked every process to end cleanly: the trainer
//             checkpoints and ends, workers end; a resume goes on
//
// A run without the file is running (every run from before it).

#include <string>

#include "run/run_dir.h"

namespace loa::run {

enum class RunState { kRunning, kFinished, kStopped };

// Returns "running", "finished" or "stopped".
const char* RunStateName(RunState state);

struct RunStatus {
  RunState state = RunState::kRunning;
  std::string reason;  // one line: who and why, e.g. "loaz stop on host n1"
  double time = 0;     // Unix seconds of the write (0 when there is no file)
  std::string damage;  // state.json exists but does not read as a state: its path and why ("" when sound)

  bool ended() const { return state != RunState::kRunning; }
};

// Writes state.json atomically with the time now. Throws IoError.
void WriteRunState(const RunDir& dir, RunState state, const std::string& reason);

// Returns the run's state: running when state.json does not exist; a file
// that does not read as a state (damaged: garbled, cut short, emptied, a
// folder) is read as running, so that nothing written there ends a run by
// accident, with `damage` saying so (every reader reports it: `loaz
// status`, the page, the log of the trainer and the workers).
RunStatus ReadRunState(const RunDir& dir);

}  // namespace loa::run
