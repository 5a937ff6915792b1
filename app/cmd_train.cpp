// loaz train: a whole training run in one process (self-play, trainer,
// evaluation), started from a config or resumed from its run directory.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "train/run.h"
#include "train/stop.h"

namespace loa::app {

int RunTrain(int argc, char** argv) {
  CLI::App cli{
      "Run a training run: self-play workers, the trainer and evaluation in one process.\n"
      "`loaz train CONFIG` starts (or, with the same config, resumes) the run named by the config;\n"
      "`loaz train --run DIR` resumes a run from its directory, after a stop or a crash.\n"
      "Ctrl-C stops cleanly; progress goes to the terminal, DIR/log.txt and DIR/metrics.jsonl.",
      argv[0]};
  std::string config_path, run_dir;
  std::vector<std::string> overrides;
  cli.add_option("CONFIG", config_path, "YAML config (configs/tiny.yaml, configs/default.yaml, configs/gpu.yaml)");
  cli.add_option("--run", run_dir, "resume the run in this directory (reads DIR/config.yaml)");
  cli.add_option("--set", overrides, "override a config value: section.key=value (repeatable)");
  CLI11_PARSE(cli, argc, argv);
  if (config_path.empty() == run_dir.empty()) throw Error("give either CONFIG or --run DIR (see --help)");

  const train::OpenedRun run = run_dir.empty() ? train::OpenRunFromConfig(config_path, overrides)
                                               : train::OpenRunDirectory(run_dir, overrides, true);
  train::InstallStopHandlers();
  return train::RunTraining(run, train::RunParts{});
}

}  // namespace loa::app
