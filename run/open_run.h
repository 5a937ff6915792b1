#pragma once
// Opening a run's directory for work: a new run from a config file, or a
// run there already (resumed by `loaz train --run`, joined by `loaz
// selfplay`, `loaz eval`, `loaz launch`), with the checks that stop a bad
// run before anything is written. No LibTorch: `loaz launch` and `loaz
// status` run without it.

#include <functional>
#include <string>
#include <vector>

#include "net/export.h"
#include "run/config.h"
#include "run/run_dir.h"

namespace loa::run {

// A run directory opened for work, with its config.
struct OpenedRun {
  Config config;
  RunDir dir;
  bool resumed = false;  // the directory held a run already
};

// A command's own check of a config (its players' specs, say: run/ knows
// no players), run before anything is written; throws Error.
using ConfigCheck = std::function<void(const Config&)>;

// Opens the run of a config file: creates run.directory/run.name and writes
// the resolved config there; when the directory already holds a run with
// the same resolved config, resumes it. Throws Error when it holds a run
// with a different config (naming the command that resumes it), or what
// `check` throws (before the directory is made).
OpenedRun OpenRunFromConfig(const std::string& config_path, const std::vector<std::string>& overrides,
                            const ConfigCheck& check = nullptr);

// Opens an existing run directory for resuming or for a separate process:
// reads DIR/config.yaml with overrides on top, and rewrites it with them
// when `persist` (the trainer's changes; a self-play process's are its
// own). Throws Error when DIR holds no run, or what `check` throws.
OpenedRun OpenRunDirectory(const std::string& dir, const std::vector<std::string>& overrides, bool persist,
                           const ConfigCheck& check = nullptr);

// Reads train.initial_net and checks that it can start a run of config:
// the run's net but for fewer or as many blocks, and the run's rules.
// Throws Error (one line naming the key and the file) or IoError.
ExportedNet ReadInitialNet(const Config& config);

}  // namespace loa::run
