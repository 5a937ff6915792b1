// loaz label: a run's samples labelled by the solver (docs/TRAINING.md, D2):
// positions drawn from its replay shards, the exam's games and positions
// held out, each solved within a node budget, the proven ones written as the
// replay shards of another run, whose trainer then learns the truth.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"
#include "play/exam.h"
#include "run/config.h"
#include "run/run_dir.h"
#include "train/label.h"

namespace loa::app {

int RunLabel(int argc, char** argv) {
  CLI::App cli{
      "Label a run's samples by the solver: distinct positions drawn from its replay shards (none of its exam "
      "set's games or positions), each proven within --nodes, the proven ones written as replay shards "
      "OUT/selfplay/ with the proof as the value target. Then `loaz trainer CONFIG --set run.name=...` "
      "trains a net on them (docs/TRAINING.md, D2).",
      argv[0]};
  std::string from, out, control;
  train::LabelOptions opts;
  cli.add_option("--run", from, "the run whose shards to label")->required();
  cli.add_option("--out", out, "the run directory to write the labelled shards into (its selfplay/)")->required();
  cli.add_option("--control", control,
                 "also write the same samples with their games' outcomes into this run directory's selfplay/ "
                 "(the control: self-play's targets on the same positions)");
  cli.add_option("--nodes", opts.nodes, "df-pn positions searched for each sample")->check(CLI::Range(1, 1 << 30));
  cli.add_option("--positions", opts.positions, "samples to draw and solve")->check(CLI::Range(1, 100000000));
  cli.add_option("--threads", opts.threads, "solvers at once")->check(CLI::Range(1, 256));
  cli.add_option("--memory", opts.memory_mb, "megabytes of each solver's table")->check(CLI::Range(1, 1 << 20));
  cli.add_option("--seed", opts.seed, "the draw's seed");
  LOAZ_PARSE(cli, argc, argv);

  const run::RunDir dir(from), to(out);
  dir.CheckHoldsRun("--run ");
  for (const auto& [flag, folder] : {std::pair<const char*, std::string>{"--out", out}, {"--control", control}}) {
    const run::RunDir d(folder);
    if (!folder.empty() && (d.Exists() || !d.ListShards().empty()))
      throw Error(std::string(flag) + " " + folder + ": already holds a run or shards; name a new folder");
  }
  opts.rules = run::LoadConfig(dir.ConfigPath()).rules;
  if (auto text = ReadFileIfAny(dir.ExamSetPath())) {
    for (const ExamPosition& e : ParseExamSet(*text, dir.ExamSetPath())) {
      opts.held_out_positions.insert(e.position.hash());
      if (!e.game.empty()) opts.held_out_games.insert(e.game);
    }
    std::printf("held out: %zu exam positions, %zu of their games (%s)\n", opts.held_out_positions.size(),
                opts.held_out_games.size(), dir.ExamSetPath().c_str());
  }
  const train::LabelCounts n = train::LabelShards(
      dir, to.SelfplayDir(), opts,
      [](int64_t done, int64_t of) {
        std::fprintf(stderr, "loaz label: solved %lld of %lld\n", (long long)done, (long long)of);
      },
      control.empty() ? "" : run::RunDir(control).SelfplayDir());
  std::printf(
      "%lld samples, %lld held out; %lld positions drawn, %lld proven within %lld nodes (%.1f%%), in %lld shards "
      "under %s\n",
      (long long)n.samples, (long long)n.held_out, (long long)n.drawn, (long long)n.proven, (long long)opts.nodes,
      n.drawn ? 100.0 * n.proven / n.drawn : 0.0, (long long)n.shards, to.SelfplayDir().c_str());
  std::printf("\n| proof (plies) | proven wins and losses | the game's outcome otherwise |\n| --- | --- | --- |\n");
  for (const train::LabelCounts::Row& r : n.rows)
    std::printf("| %s | %lld | %lld (%.1f%%) |\n", r.plies.c_str(), (long long)r.proven, (long long)r.against,
                r.proven ? 100.0 * r.against / r.proven : 0.0);
  return 0;
}

}  // namespace loa::app
