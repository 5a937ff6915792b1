// loaz trainer: the trainer (and evaluation) alone, training from the
// shards that `loaz selfplay` processes write into the run directory.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/command.h"
#include "train/run.h"
#include "train/stop.h"

namespace loa::app {

int RunTrainer(int argc, char** argv) {
  CLI::App cli{
      "Run the trainer of a run directory without self-play: it trains from the replay\n"
      "shards that `loaz selfplay --run DIR` processes write, writes checkpoints, and\n"
      "evaluates them as the config says. Resumes from the newest checkpoint. Ctrl-C stops.",
      argv[0]};
  std::string run_dir;
  std::vector<std::string> overrides;
  cli.add_option("--run", run_dir, "the run directory")->required();
  cli.add_option("--set", overrides, "override a config value: section.key=value (repeatable; saved)");
  CLI11_PARSE(cli, argc, argv);

  const train::OpenedRun run = train::OpenRunDirectory(run_dir, overrides, true);
  train::InstallStopHandlers();
  train::RunParts parts;
  parts.selfplay = false;
  return train::RunTraining(run, parts);
}

}  // namespace loa::app
