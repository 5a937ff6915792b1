#pragma once
// loaz bench scaling (app/bench_scaling.cpp): how each part of the system
// grows with threads (docs/SCALING.md).

#include <optional>
#include <string>
#include <vector>

#include "app/bench_commands.h"
#include "app/cli.h"
#include "mcts/search_params.h"
#include "net/export.h"

namespace loa::app {

// How `bench scaling` runs: the counts to measure, which figures, and the
// self-play workers' evaluator.
struct ScalingOptions {
  std::vector<int> counts;  // threads or workers; empty: 1, 2, 4, ... up to max_threads
  int max_threads = 0;      // 0: the cpus
  int games = 32;
  int playouts = 160;
  double seconds = 2.0;
  int rounds = 3;  // the engine search's: each figure the median of this many
  bool search = true;
  bool train = true;
  // The self-play workers' shared evaluator: "cpu" (the int8 net, as a
  // run's workers on the cpu) or "cuda" (LibTorch, options below).
  std::string selfplay_device = "cpu";
  std::string precision = "bf16";
  int in_flight = 2;
  bool cuda_graphs = true;  // where the build has them (net/cuda_graphs.h)
  // The engine search's settings: the engine's own (EngineSearchParams)
  // with `--search KEY=VALUE ...` over them (the keys of an mcts: spec's
  // search, e.g. leaves_per_batch=1); threads is each count.
  SearchParams search_params;
  // `--versus KEY=VALUE ...`: a second setting of the engine search (over
  // search_params), measured in the same rounds, turn about with the first.
  std::optional<SearchParams> versus_params;
  std::string versus_name;
};

// Prints the engine search's playouts a second, the self-play workers'
// positions an hour and the trainer's samples a second at each count of
// options.counts, each against the first count's rate. net_name says where
// net came from. Returns 0.
int BenchScaling(const ExportedNet& net, const std::string& net_name, ScalingOptions options);

// `bench scaling`'s options, as parsed.
struct ScalingCommand {
  CLI::App* app = nullptr;
  ScalingOptions so;
  int max_threads = 0;
  bool skip_train = false, skip_search = false;
  std::vector<std::string> search_settings, versus_settings;  // KEY=VALUE each
};

// Adds `bench scaling` to cli, parsing into *c.
void AddScalingCommand(CLI::App& cli, NetChoice& net_choice, ScalingCommand* c);

// Runs `bench scaling` as c asks.
int RunScaling(NetChoice& net_choice, ScalingCommand* c);

}  // namespace loa::app
