#include "app/train_command.h"

#include "app/cli.h"

#include <vector>

#include "core/error.h"
#include "play/player.h"
#include "train/stop.h"

namespace loa::app {

int RunTrainingCommand(int argc, char** argv, const std::string& description, train::RunParts parts) {
  CLI::App cli{description, argv[0]};
  std::string config_path, run_dir;
  std::vector<std::string> overrides;
  cli.add_option("CONFIG", config_path, "YAML config (configs/tiny.yaml, configs/default.yaml, configs/gpu.yaml)");
  cli.add_option("--run", run_dir, "resume the run in this directory (reads DIR/config.yaml)");
  cli.add_option("--set", overrides, "override a config value: section.key=value (repeatable; saved)")
      ->allow_extra_args(false);
  cli.add_flag("--unless-ended", parts.unless_ended,
               "end at once when the run has finished or was stopped, instead of resuming it (cluster jobs)");
  LOAZ_PARSE(cli, argc, argv);
  if (config_path.empty() == run_dir.empty()) throw UsageError("give either CONFIG or --run DIR (see --help)");

  // The opponents built once: a bad one fails now, not at the first evaluation.
  const run::ConfigCheck check = [](const run::Config& c) {
    CheckPlayerSpecs(c.eval.opponents, "eval.opponents", true);
  };
  const run::OpenedRun run = run_dir.empty() ? run::OpenRunFromConfig(config_path, overrides, check)
                                             : run::OpenRunDirectory(run_dir, overrides, true, check);
  train::InstallStopHandlers();
  return train::RunTraining(run, parts);
}

}  // namespace loa::app
