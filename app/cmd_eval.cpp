// loaz eval: rate every checkpoint of a run in one table.

#include "app/cli.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "play/player.h"
#include "run/checkpoints.h"
#include "run/run_context.h"
#include "train/checkpoint_store.h"
#include "train/evaluation.h"
#include "train/run.h"
#include "train/stop.h"

namespace loa::app {

int RunEval(int argc, char** argv) {
  CLI::App cli{
      "Rate the checkpoints of a run: each one plays the baseline ladder (eval.opponents) and\n"
      "the best checkpoint before it, up to --games games each (games already played count);\n"
      "then one Bradley-Terry table over every match of the run (those played during training\n"
      "too) is printed and written to DIR/eval/ratings.txt, the first ladder player fixed at\n"
      "Elo 0. The strength benchmark at equal time per move, one checkpoint per half hour:\n"
      "  loaz eval --run DIR --every-hours 0.5 --games 100 \\\n"
      "    --set eval.time=0.1 --set 'eval.opponents=[\"ab:time=0.1\"]' --set eval.previous_best=false",
      argv[0]};
  std::string run_dir;
  std::vector<std::string> overrides;
  int games = 0, every = 1;
  double every_hours = 0;
  std::vector<int64_t> only_steps;
  bool table_only = false;
  cli.add_option("--run", run_dir, "the run directory")->required();
  cli.add_option("--games", games, "games per match (default eval.games)")->check(CLI::Range(1, 100000));
  cli.add_option("--every", every, "evaluate every k-th checkpoint (and the last)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cli.add_option("--every-hours", every_hours,
                 "evaluate the newest checkpoint of each period of H hours (and the last)")
      ->check(CLI::Range(1e-6, 1e6));
  cli.add_option("--steps", only_steps, "evaluate these checkpoints only (steps, space or comma separated)")
      ->delimiter(',');
  cli.add_flag("--table-only", table_only, "play nothing; print the table of the matches played so far");
  cli.add_option("--set", overrides, "override a config value for this command, e.g. eval.threads=2")
      ->allow_extra_args(false);
  LOAZ_PARSE(cli, argc, argv);

  const run::OpenedRun run = run::OpenRunDirectory(run_dir, overrides, false, [](const run::Config& c) {
    CheckPlayerSpecs(c.eval.opponents, "eval.opponents", true);
  });
  train::InstallStopHandlers();
  run::RunContext context(run.config, run.dir);
  run::Logger& log = context.log;
  train::WriteMissingCheckpointHeaders(run.dir, &log);  // a run from before headers
  train::CheckpointRater rater(context);
  if (!table_only) {
    const std::vector<int64_t> steps = run.dir.ListCheckpoints();
    // A checkpoint's run time is in its header: read once, when needed.
    std::vector<double> hours_read(steps.size(), -1);
    auto hours = [&](size_t i) {
      if (hours_read[i] < 0) hours_read[i] = run::CheckpointHours(run.dir, steps[i]);
      return hours_read[i];
    };
    auto due = [&](size_t i) {
      if (!only_steps.empty()) return std::count(only_steps.begin(), only_steps.end(), steps[i]) > 0;
      if (i + 1 == steps.size()) return true;
      // The newest checkpoint of its period: the next one is in a later period.
      if (every_hours > 0) return int64_t(hours(i) / every_hours) < int64_t(hours(i + 1) / every_hours);
      return i % size_t(every) == 0;
    };
    for (size_t i = 0; i < steps.size() && !train::StopRequested(); ++i) {
      if (!due(i)) continue;
      log.Info("evaluating step " + std::to_string(steps[i]));
      try {
        rater.Rate(steps[i], hours(i), games);
      } catch (const Error& e) {
        log.Warn("skipping step " + std::to_string(steps[i]) + ": " + e.what());  // as `train` does
      }
    }
  }
  std::fputs(rater.WriteRatings().c_str(), stdout);
  return train::StopRequested() ? 130 : 0;
}

}  // namespace loa::app
