#pragma once
// A stop request shared by the parts of a run: set by SIGINT or SIGTERM (or
// by the code), polled by the loops, which finish their step and return.

#include <atomic>

namespace loa::train {

// Returns whether a stop was requested. Thread-safe and signal-safe.
bool StopRequested();

// Requests a stop. Thread-safe and signal-safe.
void RequestStop();

// Makes SIGINT and SIGTERM request a stop; a second SIGINT ends the process
// at once. Call once from main's thread before starting the run.
void InstallStopHandlers();

}  // namespace loa::train
