#pragma once
// The shape shared by `loaz train` and `loaz trainer`: CONFIG or --run DIR,
// --set overrides, stop handlers, then the run's parts.

#include <string>

#include "train/run.h"

namespace loa::app {

// Parses `[CONFIG] [--run DIR] [--set k=v ...] [--unless-ended]` (exactly one of CONFIG and
// --run), opens or creates the run, installs the stop handlers and runs
// `parts`; returns the exit code.
int RunTrainingCommand(int argc, char** argv, const std::string& description, train::RunParts parts);

}  // namespace loa::app
