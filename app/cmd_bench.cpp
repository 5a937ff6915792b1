// loaz bench: speed figures, side by side in one run. `bench net`: network
// evaluations per second on LibTorch and Eigen by batch size; `bench mcts`:
// playouts per second of the engine's search and of batched self-play, with
// the uniform evaluator and with a net. Thread counts go with every figure.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "core/game.h"
#include "mcts/search.h"
#include "mcts/selfplay.h"
#include "mcts/uniform_evaluator.h"
#include "net/eigen_net.h"
#include "net/export.h"
#include "net/net_evaluator.h"
#include "net/torch_evaluator.h"

namespace loa::app {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The net to measure: a file, or a fresh one of the given shape.
struct NetChoice {
  std::string file;
  NetConfig config;
  uint64_t seed = 1;

  ExportedNet Load() const { return file.empty() ? NewNet(config, seed, Rules().ToString()) : ReadNetFile(file); }
};

void AddNetOptions(CLI::App* cli, NetChoice& net) {
  auto* file = cli->add_option("--net", net.file, "net file (export or checkpoint); default: a fresh net");
  cli->add_option("--blocks", net.config.blocks, "blocks of the fresh net")->capture_default_str()->excludes(file);
  cli->add_option("--channels", net.config.channels, "channels of the fresh net")
      ->capture_default_str()
      ->excludes(file);
}

// Distinct positions from random games (fixed seed), none of them over.
std::vector<Position> BenchPositions(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Position> out;
  Position pos = Position::Start();
  while (int(out.size()) < count) {
    if (pos.IsUnited(kBlack) || pos.IsUnited(kWhite)) pos = Position::Start();
    out.push_back(pos);
    MoveList moves;
    pos.GenerateMoves(moves);
    pos = pos.Apply(moves[std::uniform_int_distribution<int>(0, moves.size() - 1)(rng)]);
  }
  return out;
}

// Returns evaluations per second of evaluator on batches of `batch`
// positions, run for at least `seconds` after one warm-up call.
double EvaluationsPerSecond(Evaluator& evaluator, const std::vector<Position>& positions, int batch, double seconds) {
  std::vector<EvalOutput> out(batch);
  evaluator.Evaluate(positions.data(), batch, out.data());
  long calls = 0;
  const auto start = Clock::now();
  do {
    evaluator.Evaluate(positions.data(), batch, out.data());
    ++calls;
  } while (SecondsSince(start) < seconds || calls < 3);
  return calls * batch / SecondsSince(start);
}

// The machine's peak float32 rate on `threads` cores: clock x FMA lanes x 2
// FMA units x 2 flops, from /proc/cpuinfo (AVX-512: 16 lanes, AVX2: 8). An
// estimate: all-core AVX-512 clocks are often below the nominal one.
double PeakGflops(int threads, std::string* how) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  double mhz = 0;
  bool avx512 = false, avx2 = false;
  while (std::getline(cpuinfo, line)) {
    if (mhz == 0 && line.rfind("cpu MHz", 0) == 0) mhz = std::stod(line.substr(line.find(':') + 1));
    if (line.rfind("flags", 0) == 0) {
      avx512 = avx512 || line.find(" avx512f") != std::string::npos;
      avx2 = avx2 || line.find(" avx2") != std::string::npos;
    }
  }
  const int lanes = avx512 ? 16 : avx2 ? 8 : 4;
  const double peak = threads * mhz / 1000 * lanes * 2 * 2;
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "%d core%s x %.2f GHz x %d lanes (%s) x 2 FMA units x 2 flops", threads,
                threads == 1 ? "" : "s", mhz / 1000, lanes,
                avx512 ? "AVX-512"
                : avx2 ? "AVX2"
                       : "SSE");
  *how = buffer;
  return peak;
}

int BenchNet(const NetChoice& choice, int threads, const std::vector<int>& batches, double seconds) {
  ExportedNet net = choice.Load();
  const double flops = net.config.FlopsPerPosition();
  NetEvaluatorOptions options;
  options.threads = threads;
  options.max_batch = *std::max_element(batches.begin(), batches.end());
  options.batch_wait_us = 0;
  TorchEvaluator torch_evaluator(net, options);
  EigenEvaluator eigen_evaluator(net, threads);
  std::string how;
  const double peak = PeakGflops(threads, &how);
  std::printf("bench net: %s%s, %.1f MFLOP per position, encoder v%d\n", net.config.ShortName().c_str(),
              choice.file.empty() ? " (fresh)" : (" " + choice.file).c_str(), flops / 1e6, kEncoderVersion);
  std::printf("threads: LibTorch intra-op %d, Eigen %d (chunks of a batch over OpenMP)\n", TorchIntraOpThreads(),
              threads);
  std::printf("peak estimate: %.0f GFLOP/s = %s\n\n", peak, how.c_str());
  std::printf("%6s %14s %14s %9s %14s %14s %8s %8s\n", "batch", "torch eval/s", "eigen eval/s", "eigen/t",
              "torch GFLOP/s", "eigen GFLOP/s", "torch %", "eigen %");
  std::vector<Position> positions = BenchPositions(options.max_batch, 12345);
  for (int batch : batches) {
    double t = EvaluationsPerSecond(torch_evaluator, positions, batch, seconds);
    double e = EvaluationsPerSecond(eigen_evaluator, positions, batch, seconds);
    double tg = t * flops / 1e9, eg = e * flops / 1e9;
    std::printf("%6d %14.0f %14.0f %8.2fx %14.1f %14.1f %7.1f%% %7.1f%%\n", batch, t, e, e / t, tg, eg, 100 * tg / peak,
                100 * eg / peak);
    std::fflush(stdout);
  }
  return 0;
}

// Returns playouts per second of one engine search from the start position.
double SearchPlayoutsPerSecond(Evaluator& evaluator, int threads, int playouts, int64_t* done) {
  SearchParams params;
  params.threads = threads;
  params.reuse_tree = false;
  Search search(&evaluator, params);
  SearchLimits limits;
  limits.playouts = playouts;
  limits.early_stop = false;
  Game game;
  const auto start = Clock::now();
  SearchResult result = search.Run(game, limits);
  *done = result.playouts;
  return result.playouts / SecondsSince(start);
}

// Returns evaluations per second of batched self-play with `games` games,
// stepped for at least `seconds`; *mean_batch gets the mean batch size.
double SelfPlayEvaluationsPerSecond(Evaluator& evaluator, int games, double seconds, double* mean_batch) {
  SearchParams params;
  SelfPlayDriver driver(&evaluator, params, Rules(), games, /*seed=*/1);
  std::vector<SelfPlayGame> finished;
  driver.Step(&finished);  // warm-up
  const int64_t first = driver.evaluations();
  long steps = 0;
  const auto start = Clock::now();
  do {
    driver.Step(&finished);
    finished.clear();
    ++steps;
  } while (SecondsSince(start) < seconds);
  const int64_t evaluations = driver.evaluations() - first;
  *mean_batch = double(evaluations) / steps;
  return evaluations / SecondsSince(start);
}

int BenchMcts(const NetChoice& choice, int threads, int playouts, int games, double seconds) {
  std::printf("bench mcts: search threads %d, %d playouts from the start; self-play %d games per batch\n", threads,
              playouts, games);
  UniformEvaluator uniform;
  int64_t done = 0;
  double rate = SearchPlayoutsPerSecond(uniform, threads, playouts, &done);
  std::printf("  uniform, one game, %d thread%s: %10.0f playouts/s (%lld playouts)\n", threads, threads == 1 ? "" : "s",
              rate, static_cast<long long>(done));
  double mean_batch = 0;
  rate = SelfPlayEvaluationsPerSecond(uniform, games, seconds, &mean_batch);
  std::printf("  uniform, self-play batched: %10.0f playouts/s (mean batch %.1f, 1 thread)\n", rate, mean_batch);

  ExportedNet net = choice.Load();
  NetEvaluatorOptions options;
  options.threads = threads;
  options.max_batch = std::max(games, 1);
  options.cache_entries = 0;  // every playout reaches the net: the figure of the net, not of the cache
  options.batch_wait_us = 0;
  std::printf("net %s, LibTorch intra-op threads %d, Eigen threads %d, no NN cache\n", net.config.ShortName().c_str(),
              threads, threads);
  EigenEvaluator eigen(net, 1);
  rate = SearchPlayoutsPerSecond(eigen, threads, playouts / 10, &done);
  std::printf("  net (Eigen), one game, %d thread%s: %8.0f playouts/s (%lld playouts)\n", threads,
              threads == 1 ? "" : "s", rate, static_cast<long long>(done));
  TorchEvaluator torch_evaluator(net, options);
  EigenEvaluator eigen_batched(net, threads);
  for (Evaluator* evaluator : {static_cast<Evaluator*>(&torch_evaluator), static_cast<Evaluator*>(&eigen_batched)}) {
    const char* name = evaluator == &torch_evaluator ? "LibTorch" : "Eigen";
    rate = SelfPlayEvaluationsPerSecond(*evaluator, games, seconds, &mean_batch);
    const int batch = std::max(1, int(mean_batch + 0.5));
    double bare = EvaluationsPerSecond(*evaluator, BenchPositions(batch, 777), batch, seconds);
    std::printf(
        "  net (%s), self-play batched: %8.0f playouts/s (mean batch %.1f); bare net at batch %d: "
        "%.0f eval/s; search keeps %.1f%%\n",
        name, rate, mean_batch, batch, bare, 100 * rate / bare);
  }
  return 0;
}

}  // namespace

int RunBench(int argc, char** argv) {
  CLI::App cli{
      "Speed figures: `bench net` (evaluations per second, LibTorch and Eigen, by batch size) and\n"
      "`bench mcts` (playouts per second: one game multi-threaded, many games batched).",
      argv[0]};
  cli.require_subcommand(1);
  NetChoice net_choice;
  int threads = 1, playouts = 20000, games = 64;
  double seconds = 1.0;
  std::vector<int> batches = {1, 8, 64, 256};
  CLI::App* net = cli.add_subcommand("net", "network evaluations per second");
  AddNetOptions(net, net_choice);
  net->add_option("--threads", threads, "inference threads (LibTorch intra-op, Eigen)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  net->add_option("--batches", batches, "batch sizes")->capture_default_str()->check(CLI::Range(1, 4096));
  net->add_option("--seconds", seconds, "time per figure")->capture_default_str()->check(CLI::Range(0.01, 600.0));
  CLI::App* mcts = cli.add_subcommand("mcts", "search playouts per second");
  AddNetOptions(mcts, net_choice);
  mcts->add_option("--threads", threads, "search threads of the one-game search, and inference threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  mcts->add_option("--playouts", playouts, "playouts of the uniform one-game search (a tenth with the net)")
      ->capture_default_str()
      ->check(CLI::Range(10, 100000000));
  mcts->add_option("--games", games, "self-play games advanced together")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));
  mcts->add_option("--seconds", seconds, "time per self-play figure")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 600.0));
  CLI11_PARSE(cli, argc, argv);
  if (*net) return BenchNet(net_choice, threads, batches, seconds);
  return BenchMcts(net_choice, threads, playouts, games, seconds);
}

}  // namespace loa::app
