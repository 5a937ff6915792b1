#pragma once
// The subcommands of `loaz bench` (app/cmd_bench.cpp), one file each:
// bench_net.cpp, bench_mcts.cpp, bench_train.cpp, bench_scaling.cpp and
// bench_ab.cpp (bench_scaling.h: bench scaling's own); and what they share: the net to measure, the backends'
// variants, evaluations a second.

#include <memory>
#include <string>
#include <vector>

#include "app/cli.h"
#include "core/game.h"
#include "core/position.h"
#include "mcts/evaluator.h"
#include "net/backends.h"
#include "net/checkpoint.h"
#include "net/export.h"
#include "net/net_config.h"
#include "net/net_evaluator.h"

namespace loa::app {

// The net to measure: a file, or a fresh one of the given shape.
struct NetChoice {
  std::string file;
  NetConfig config;
  uint64_t seed = 1;

  ExportedNet Load() const { return file.empty() ? NewNet(config, seed, Rules().ToString()) : ReadNetFile(file); }
};

// Adds the options that choose the net (--net, or a fresh net's shape).
void AddNetOptions(CLI::App* cli, NetChoice& net);

// Returns evaluations per second of evaluator on batches of `batch`
// positions, run for at least `seconds` after one warm-up call.
double EvaluationsPerSecond(Evaluator& evaluator, const std::vector<Position>& positions, int batch, double seconds,
                            bool cpu_time);

// An evaluator of the backends' table in one of its precisions.
struct BackendVariant {
  std::string name;  // "cpu int8"
  std::unique_ptr<Evaluator> evaluator;
  std::string precision;  // "int8"
};

// Every backend of this program that runs on options.device ("cpu" or
// "cuda"), in every precision it takes there, in the table's order
// (net/backends.h): a new backend or precision shows up in `bench net` by
// its row alone.
std::vector<BackendVariant> BackendVariants(const ExportedNet& net, const NetEvaluatorOptions& options);

// `bench net`: evaluations per second of each backend by batch size.
int BenchNet(const NetChoice& choice, const std::string& device, int threads, const std::vector<int>& batches,
             double seconds, bool cpu_time);

// `bench mcts`: playouts per second of the engine's search and of batched self-play.
int BenchMcts(const NetChoice& choice, int threads, int playouts, int games, double seconds, bool cpu_time);

// `bench train`: samples per second of the trainer's step in each precision.
int BenchTrain(const NetChoice& choice, const std::string& device_name, int threads, int batch_size, double seconds,
               bool cpu_time);

}  // namespace loa::app
