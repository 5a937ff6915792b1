// loaz eval: rate every checkpoint of a run in one table.

#include "app/cli.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "train/evaluation.h"
#include "train/logger.h"
#include "train/metrics.h"
#include "train/run.h"
#include "train/stop.h"

namespace loa::app {

int RunEval(int argc, char** argv) {
  CLI::App cli{
      "Rate the checkpoints of a run: each one not yet evaluated plays the baseline ladder\n"
      "(eval.opponents) and the best checkpoint before it; then one Bradley-Terry table over\n"
      "every match of the run (those played during training too) is printed and written to\n"
      "DIR/eval/ratings.txt, the first ladder player fixed at Elo 0.",
      argv[0]};
  std::string run_dir;
  std::vector<std::string> overrides;
  int games = 0, every = 1;
  std::vector<int64_t> only_steps;
  bool table_only = false;
  cli.add_option("--run", run_dir, "the run directory")->required();
  cli.add_option("--games", games, "games per match (default eval.games)")->check(CLI::Range(1, 100000));
  cli.add_option("--every", every, "evaluate every k-th checkpoint (and the last)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cli.add_option("--steps", only_steps, "evaluate these checkpoints only (steps, space or comma separated)")
      ->delimiter(',');
  cli.add_flag("--table-only", table_only, "play nothing; print the table of the matches played so far");
  cli.add_option("--set", overrides, "override a config value for this command, e.g. eval.threads=2")
      ->allow_extra_args(false);
  LOAZ_PARSE(cli, argc, argv);

  const train::OpenedRun run = train::OpenRunDirectory(run_dir, overrides, false);
  train::InstallStopHandlers();
  train::Logger log(run.dir.LogPath());
  train::MetricsLog metrics(run.dir.MetricsPath());
  train::CheckpointRater rater(run.config, run.dir, log, metrics);
  if (!table_only) {
    std::set<std::string> rated;
    for (const train::MatchRecord& r : train::ReadMatchRecords(run.dir)) rated.insert(r.a);
    const std::vector<int64_t> steps = run.dir.ListCheckpoints();
    for (size_t i = 0; i < steps.size() && !train::StopRequested(); ++i) {
      const bool due = only_steps.empty() ? i % size_t(every) == 0 || i + 1 == steps.size()
                                          : std::count(only_steps.begin(), only_steps.end(), steps[i]) > 0;
      if (!due || rated.count(train::CheckpointName(steps[i]))) continue;
      log.Info("evaluating step " + std::to_string(steps[i]));
      try {
        rater.Rate(steps[i], train::CheckpointHours(run.dir, steps[i]), games);
      } catch (const Error& e) {
        log.Warn("skipping step " + std::to_string(steps[i]) + ": " + e.what());  // as `train` does
      }
    }
  }
  std::fputs(rater.WriteRatings().c_str(), stdout);
  return train::StopRequested() ? 130 : 0;
}

}  // namespace loa::app
