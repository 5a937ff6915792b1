// loaz trainer: the trainer (and evaluation) alone, training from the
// shards that `loaz selfplay` processes write into the run directory.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "train/run.h"
#include "train/stop.h"

namespace loa::app {

int RunTrainer(int argc, char** argv) {
  CLI::App cli{"Run the trainer of a run without self-play: it trains from the replay shards that\n"
               "`loaz selfplay --run DIR` processes (on this machine or others sharing DIR) write,\n"
               "writes checkpoints and evaluates them as the config says. `loaz trainer CONFIG`\n"
               "creates the run directory (or resumes it); `loaz trainer --run DIR` resumes.\n"
               "Ctrl-C stops cleanly.",
               argv[0]};
  std::string config_path, run_dir;
  std::vector<std::string> overrides;
  cli.add_option("CONFIG", config_path, "YAML config of a new run");
  cli.add_option("--run", run_dir, "the run directory");
  cli.add_option("--set", overrides, "override a config value: section.key=value (repeatable; saved)");
  CLI11_PARSE(cli, argc, argv);
  if (config_path.empty() == run_dir.empty()) throw Error("give either CONFIG or --run DIR (see --help)");

  const train::OpenedRun run = run_dir.empty() ? train::OpenRunFromConfig(config_path, overrides)
                                               : train::OpenRunDirectory(run_dir, overrides, true);
  train::InstallStopHandlers();
  train::RunParts parts;
  parts.selfplay = false;
  return train::RunTraining(run, parts);
}

}  // namespace loa::app
