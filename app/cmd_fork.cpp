// loaz fork: a new run that goes on from a checkpoint of another, with
// settings changed (docs/RUNS.md, "Forking a run").

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/error.h"
#include "train/fork.h"

namespace loa::app {

int RunFork(int argc, char** argv) {
  CLI::App cli{
      "Start a new run from a checkpoint of another: its checkpoints, the replay data its trainer had seen and its\n"
      "records up to the checkpoint, hard-linked, with settings changed by --set. `loaz train --run NEW` goes on\n"
      "from there. Of the net only net.blocks and net.channels may change, and only upwards: the net grows into\n"
      "a larger one that computes what it did (new blocks at identity, new channels unread by the old ones).",
      argv[0]};
  std::string from, to;
  int64_t step = -1;
  std::vector<std::string> overrides;
  cli.add_option("--run", from, "the run directory to fork")->required();
  cli.add_option("--step", step, "its checkpoint to go on from (default: the newest readable)")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--to", to, "the new run directory (must not exist)")->required();
  cli.add_option("--set", overrides, "section.key=value for the fork's config (repeatable)");
  LOAZ_PARSE(cli, argc, argv);

  const train::ForkSummary s = train::ForkRun(from, step, to, overrides);
  std::printf("forked %s at step %lld (%.4f h of run time) into %s: %d checkpoints, %d replay shards (%lld games)\n",
              from.c_str(), static_cast<long long>(s.step), s.hours, to.c_str(), s.checkpoints, s.shards,
              static_cast<long long>(s.games));
  if (!s.grown_to.empty())
    std::printf("the net grew from %s to %s: %s\n", s.grown_from.c_str(), s.grown_to.c_str(), train::kGrowthNote);
  std::printf("go on with: loaz train --run %s\n", to.c_str());
  return 0;
}

}  // namespace loa::app
