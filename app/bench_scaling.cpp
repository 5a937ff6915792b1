#include "app/bench_scaling.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>

#include "app/bench_util.h"
#include "core/game.h"
#include "mcts/selfplay_driver.h"
#include "mcts/uniform_evaluator.h"
#include "net/cpu_net.h"
#include "net/torch_evaluator.h"
#include "play/mcts_player.h"

namespace loa::app {
namespace {

// `bench scaling`: how each part of the system grows with threads, with
// each step's rate against a linear one (efficiency = rate / (threads x the
// one-thread rate)). The engine search: playouts a second of one search at
// 1, 2, 4, ... threads (uniform evaluator, then the net in int8, batch 1 a
// thread); self-play: positions an hour of 1, 2, 4, ... workers, each a
// batched driver of `games` games on its own thread, all sharing one int8
// evaluator as a run's workers do; the trainer: samples a second of the
// fp32 step at 1, 2, 4, ... LibTorch intra-op threads.
class ScalingTable {
 public:
  // The first row is the base that the others are compared to.
  void Row(const char* what, int threads, double rate, const char* unit) {
    if (base_threads_ == 0) {
      base_ = rate;
      base_threads_ = threads;
    }
    const double speedup = base_ > 0 ? rate / base_ : 0;
    std::printf("%-26s %7d %14.0f %-12s %7.2fx %9.0f%%\n", what, threads, rate, unit, speedup,
                100 * speedup * base_threads_ / threads);
    std::fflush(stdout);
  }

 private:
  double base_ = 0;
  int base_threads_ = 0;
};

// Returns 1, 2, 4, ... up to max, and max itself.
std::vector<int> Doublings(int max) {
  std::vector<int> counts;
  for (int t = 1; t < max; t *= 2) counts.push_back(t);
  counts.push_back(max);
  return counts;
}

// Returns playouts a second of one search from the start, `seconds` long.
double TimedSearchRate(Evaluator& evaluator, int threads, double seconds, const SearchParams& params) {
  SearchLimits limits;
  limits.seconds = seconds;
  int64_t done = 0;
  return SearchPlayoutsPerSecond(evaluator, threads, limits, false, &done, params);
}

// Returns positions (moves played) an hour of `workers` self-play drivers on
// their own threads, sharing evaluator, over `seconds` after a warm-up step.
double SelfPlayPositionsPerHour(Evaluator& evaluator, int workers, int games, int playouts, double seconds) {
  SearchParams params;
  params.playouts = playouts;
  std::vector<std::unique_ptr<SelfPlayDriver>> drivers;
  for (int w = 0; w < workers; ++w)
    drivers.push_back(std::make_unique<SelfPlayDriver>(&evaluator, params, Rules(), games, uint64_t(w + 1)));
  std::atomic<int64_t> moves{0};
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (auto& driver : drivers)
    threads.emplace_back([&, d = driver.get()] {
      std::vector<SelfPlayGame> finished;
      d->Step(&finished);  // warm-up: every game's first leaves
      const int64_t first = d->moves_played();
      while (SecondsSince(start) < seconds) {
        d->Step(&finished);
        finished.clear();
      }
      moves += d->moves_played() - first;
    });
  for (std::thread& t : threads) t.join();
  return double(moves.load()) / SecondsSince(start) * 3600;
}

}  // namespace

int BenchScaling(const ExportedNet& net, const std::string& net_name, ScalingOptions so) {
  if (so.counts.empty())
    so.counts = Doublings(so.max_threads > 0 ? so.max_threads : int(std::max(1u, std::thread::hardware_concurrency())));
  const int max_threads = *std::max_element(so.counts.begin(), so.counts.end());
  const int games = so.games, playouts = so.playouts;
  const double seconds = so.seconds;
  const bool cuda = so.selfplay_device == "cuda";
  std::printf(
      "bench scaling: up to %d threads on %d cpus; net %s %s, int8; %.1f s a figure, wall-clock; load average %.2f\n"
      "self-play: %d games a worker, %d playouts a move, the net %s; efficiency: the rate / (threads x the rate "
      "of one)\n\n",
      max_threads, std::thread::hardware_concurrency(), net.config.ShortName().c_str(), net_name.c_str(), seconds,
      LoadAverage(), games, playouts,
      cuda ? ("on cuda, " + so.precision + ", " + std::to_string(so.in_flight) + " batches in flight").c_str()
           : "in int8 on the cpu");
  std::printf("the engine's search: %d leaves a call%s\n\n", so.search_params.leaves_per_batch,
              so.search_params.leaves_per_batch == kEngineLeavesPerBatch ? " (the engine's default)" : "");
  std::printf("%-26s %7s %14s %-12s %8s %10s\n", "figure", "threads", "rate", "unit", "vs one", "efficiency");
  UniformEvaluator uniform;
  ScalingTable search_uniform, search_net, selfplay, trainer;
  std::unique_ptr<CpuEvaluator> int8;  // built once, when a figure needs it (calibration takes a while)
  auto engine = [&]() -> CpuEvaluator& {
    if (!int8) int8 = std::make_unique<CpuEvaluator>(net, 1, Precision::kInt8);
    return *int8;
  };
  if (so.search) {
    for (int t : so.counts)
      search_uniform.Row("search, uniform", t, TimedSearchRate(uniform, t, seconds, so.search_params), "playouts/s");
    for (int t : so.counts)
      search_net.Row("search, net", t, TimedSearchRate(engine(), t, seconds, so.search_params), "playouts/s");
  }
  for (int w : so.counts) {
    if (!cuda) {
      selfplay.Row("self-play workers", w, SelfPlayPositionsPerHour(engine(), w, games, playouts, seconds),
                   "positions/h");
      continue;
    }
    NetEvaluatorOptions options;
    options.device = "cuda";
    options.precision = so.precision;
    options.max_batch = w * games;
    options.batches_in_flight = so.in_flight;
    options.cuda_graphs = so.cuda_graphs;
    TorchEvaluator gpu(net, options);
    const double rate = SelfPlayPositionsPerHour(gpu, w, games, playouts, seconds);
    long passes = 0, positions = 0;
    gpu.Counters(&passes, &positions);
    selfplay.Row("self-play workers, cuda", w, rate, "positions/h");
    std::printf("%-26s %7s mean batch %.0f in %ld forward passes; cuda graphs of %d shapes\n", "", "",
                passes ? double(positions) / passes : 0.0, passes, gpu.graph_shapes());
  }
  if (!so.train) return 0;
  const train::Batch batch = RandomBatch(256, net.config.features());
  for (int t : so.counts) {
    torch::set_num_threads(t);
    double loss = 0;
    trainer.Row("trainer, fp32, batch 256", t, TrainSamplesPerSecond(net.config, batch, seconds, false, &loss),
                "samples/s");
  }
  return 0;
}

}  // namespace loa::app
