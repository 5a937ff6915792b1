// loaz bench: speed figures, side by side in one run. `bench net`: network
// evaluations per second of each evaluator backend (net/backends.h) by batch size; `bench mcts`:
// playouts per second of the engine's search and of batched self-play, with
// the uniform evaluator and with a net; `bench train`: samples per second of
// the trainer's step in each precision. `--device cuda` puts `net` and
// `train` on the GPU; `bench scaling`: each at 1, 2, 4, ... threads against
// linear. Thread counts go with every figure.

#include <string>
#include <vector>

#include "app/bench_ab.h"
#include "app/bench_commands.h"
#include "app/bench_scaling.h"
#include "app/cli.h"
#include "app/command.h"
#include "net/encoder.h"

namespace loa::app {

void AddNetOptions(CLI::App* cli, NetChoice& net) {
  auto* file = cli->add_option("--net", net.file, "net file (export or checkpoint); default: a fresh net");
  cli->add_option("--blocks", net.config.blocks, "blocks of the fresh net")->capture_default_str()->excludes(file);
  cli->add_option("--channels", net.config.channels, "channels of the fresh net")
      ->capture_default_str()
      ->excludes(file);
  cli->add_option("--features", net.config.input_features, "input set of the fresh net")
      ->check(CLI::IsMember(InputFeaturesNames()))
      ->capture_default_str()
      ->excludes(file);
}

int RunBench(int argc, char** argv) {
  CLI::App cli{
      "Speed figures: `bench net` (evaluations per second of each evaluator backend, by batch size),\n"
      "`bench mcts` (playouts per second: one game multi-threaded, many games batched) and\n"
      "`bench train` (training samples per second, fp32 and bf16), `bench scaling` (each of them at 1, 2, 4, ...\n"
      "threads against linear) and `bench ab` (the alpha-beta baseline).",
      argv[0]};
  cli.require_subcommand(1);
  NetChoice net_choice;
  bool cpu_time = false;
  int threads = 1, playouts = 20000, games = 64;
  double seconds = 1.0;
  std::vector<int> batches = {1, 8, 64, 256};
  std::string device = "cpu";

  // The options every figure takes: the net, threads, time, CPU time.
  auto subcommand = [&](const char* name, const char* summary, const char* threads_help, const char* seconds_help) {
    CLI::App* sub = cli.add_subcommand(name, summary);
    AddNetOptions(sub, net_choice);
    sub->add_option("--threads", threads, threads_help)->capture_default_str()->check(CLI::Range(1, 256));
    sub->add_option("--seconds", seconds, seconds_help)->capture_default_str()->check(CLI::Range(0.01, 600.0));
    sub->add_flag("--cpu-time", cpu_time, "rates per second of process CPU time, not wall-clock time");
    return sub;
  };
  CLI::App* net =
      subcommand("net", "network evaluations per second", "inference threads of each backend", "time per figure");
  net->add_option("--batches", batches, "batch sizes")->capture_default_str()->check(CLI::Range(1, 4096));
  net->add_option("--device", device, "where LibTorch runs (auto: cuda when it sees a GPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));

  CLI::App* mcts =
      subcommand("mcts", "search playouts per second", "search threads of the one-game search, and inference threads",
                 "time per self-play figure");
  mcts->add_option("--playouts", playouts, "playouts of the uniform one-game search (a tenth with the net)")
      ->capture_default_str()
      ->check(CLI::Range(10, 100000000));
  mcts->add_option("--games", games, "self-play games advanced together")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));

  CLI::App* train =
      subcommand("train", "training samples per second, fp32 and bf16", "LibTorch intra-op threads", "time per figure");
  int batch_size = 256;
  train->add_option("--batch", batch_size, "samples per step")->capture_default_str()->check(CLI::Range(1, 65536));
  train->add_option("--device", device, "where LibTorch runs (auto: cuda when it sees a GPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  ScalingCommand scaling;
  AddScalingCommand(cli, net_choice, &scaling);
  CLI::App* ab = cli.add_subcommand("ab", "the alpha-beta baseline: nodes/s, depth, signature, specs side by side");
  std::vector<std::string> ab_specs = {"ab:version=1", "ab"};
  int ab_positions = 40, ab_depth = 5;
  double ab_seconds = 0.1;
  ab->add_option("--specs", ab_specs, "ab specs to compare")->capture_default_str();
  ab->add_option("--positions", ab_positions, "positions in the set")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  ab->add_option("--seconds", ab_seconds, "time a position")->capture_default_str()->check(CLI::Range(0.001, 600.0));
  ab->add_option("--depth", ab_depth, "depth of the signature")->capture_default_str()->check(CLI::Range(1, 20));
  LOAZ_PARSE(cli, argc, argv);

  if (*ab) return BenchAb(ab_specs, ab_positions, ab_seconds, ab_depth);
  if (*scaling.app) return RunScaling(net_choice, &scaling);
  if (*net) return BenchNet(net_choice, device, threads, batches, seconds, cpu_time);
  if (*train) return BenchTrain(net_choice, device, threads, batch_size, seconds, cpu_time);
  return BenchMcts(net_choice, threads, playouts, games, seconds, cpu_time);
}

}  // namespace loa::app
