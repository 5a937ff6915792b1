#pragma once
// A run opened for work by one process: its config, its directory, its log
// and its metrics, the four things every part of a run (the trainer,
// self-play, the evaluation) writes through, handed to each as one
// reference.

#include "run/config.h"
#include "run/logger.h"
#include "run/metrics.h"
#include "run/run_dir.h"

namespace loa::run {

// Threads: config and dir are read-only after construction; log and metrics
// are thread-safe. Lifetimes: the parts that keep a reference (SelfPlay,
// Trainer, CheckpointRater) need it to outlive them.
struct RunContext {
  // Opens dir's log.txt (the terminal showing `terminal_level` and above)
  // and metrics.jsonl for appending; dir must exist. Throws IoError naming a
  // file that cannot be opened.
  RunContext(Config config, RunDir dir, LogLevel terminal_level = LogLevel::kInfo)
      : config(std::move(config)),
        dir(std::move(dir)),
        log(this->dir.LogPath(), terminal_level),
        metrics(this->dir.MetricsPath()) {}
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  const Config config;
  const RunDir dir;
  Logger log;
  JsonLinesLog metrics;
};

}  // namespace loa::run
