// loaz export: a checkpoint to a standalone weights file (safetensors);
// loaz init-net: a freshly initialised net, for tests, demos and a first run.

#include "app/cli.h"

#include <cstdio>
#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"
#include "core/game.h"
#include "net/backends.h"
#include "net/checkpoint.h"
#include "net/export.h"
#include "run/checkpoints.h"
#include "run/run_dir.h"
#include "train/checkpoint_store.h"
#include "train/run.h"

namespace loa::app {
namespace {

void PrintSummary(const char* verb, const std::string& path, const ExportedNet& net) {
  std::size_t values = 0;
  for (const auto& [name, tensor] : net.tensors) values += tensor.data.size();
  std::printf("%s %s: net %s, %zu tensors, %zu parameters and statistics, step %lld, encoder version %d\n", verb,
              path.c_str(), net.config.ShortName().c_str(), net.tensors.size(), values,
              static_cast<long long>(net.step), kEncoderVersion);
  std::printf("  architecture %s\n  rules %s\n", net.config.ToJson().c_str(), net.rules.c_str());
}

}  // namespace

int RunExport(int argc, char** argv) {
  CLI::App cli{
      "Write the weights of a checkpoint (or re-write an export) as a standalone safetensors file\n"
      "with the architecture, encoder version and rules in its metadata (docs/DESIGN.md, Data).",
      argv[0]};
  std::string input, output, run_dir;
  int64_t step = -1;
  int average = 1;
  cli.add_option("CHECKPOINT", input, "checkpoint (.pt) or export to read");
  cli.add_option("--run", run_dir, "instead of CHECKPOINT: a run directory's newest readable checkpoint");
  cli.add_option("--step", step, "with --run: the checkpoint of this step")->check(CLI::NonNegativeNumber);
  cli.add_option("--average", average,
                 "with --run: the mean of the weights of this many checkpoints, the newest at or before --step "
                 "(stochastic weight averaging)")
      ->check(CLI::Range(1, 1000));
  cli.add_option("-o,--output", output, "export to write (written atomically)")->required();
  LOAZ_PARSE(cli, argc, argv);
  if (input.empty() == run_dir.empty()) throw UsageError("give either CHECKPOINT or --run DIR (see --help)");
  if (average > 1 && run_dir.empty()) throw UsageError("--average needs --run DIR");

  ExportedNet net;
  std::string averaged;
  if (average > 1) {
    const run::RunDir run(run_dir);
    const std::vector<int64_t> steps = run::CheckpointsUpTo(run, step, average);
    if (int(steps.size()) < average)
      throw Error(run.root() + ": --average " + std::to_string(average) + " needs " + std::to_string(average) +
                  " checkpoints, the run has " + std::to_string(steps.size()) + (step >= 0 ? " up to that step" : ""));
    net = train::ExportRunNet(run, steps);
    averaged = "  the mean of " + std::to_string(steps.size()) + " checkpoints, steps " +
               std::to_string(steps.front()) + " to " + std::to_string(steps.back()) + "\n";
  } else {
    if (!run_dir.empty()) input = train::ResolveReadableCheckpoint(run::RunDir(run_dir), step);
    net = ReadNetFile(input);
  }
  WriteExport(output, net);
  ReadExport(output);  // what the engine will do: fail here, not there
  PrintSummary("wrote", output, net);
  std::fputs(averaged.c_str(), stdout);
  return 0;
}

int RunInitNet(int argc, char** argv) {
  CLI::App cli{"Write a freshly initialised net: a checkpoint when FILE ends in .pt, else an export.", argv[0]};
  NetConfig config;
  std::string output, rules_text;
  uint64_t seed = 1;
  bool no_moves_left = false;
  cli.add_option("--blocks", config.blocks, "residual blocks")->capture_default_str();
  cli.add_option("--channels", config.channels, "trunk channels")->capture_default_str();
  cli.add_option("--pooling-every", config.global_pooling_every,
                 "every k-th block gets a global pooling bias (0: none)")
      ->capture_default_str();
  cli.add_flag("--no-moves-left", no_moves_left, "leave out the moves-left head");
  cli.add_option("--seed", seed, "seed of the initialisation")->capture_default_str();
  cli.add_option("--rules", rules_text, "rule options, e.g. \"simultaneous=mover\" (default: Olympiad rules)");
  cli.add_option("-o,--output", output, "file to write")->required();
  LOAZ_PARSE(cli, argc, argv);

  config.moves_left = !no_moves_left;
  config.Validate();
  const std::string rules = Rules::FromString(rules_text).ToString();
  WriteNewNet(output, config, seed, rules);
  PrintSummary("wrote", output, ReadNetFile(output));
  return 0;
}

}  // namespace loa::app
