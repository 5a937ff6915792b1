// loaz bench mcts: playouts per second of the engine's search and of batched
// self-play, with the uniform evaluator and with a net.

#include "app/bench_commands.h"
#include "app/bench_util.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "core/game.h"
#include "core/param_visitor.h"
#include "core/random_play.h"
#include "mcts/search.h"
#include "mcts/selfplay_driver.h"
#include "mcts/uniform_evaluator.h"
#include "net/backends.h"
#include "net/checkpoint.h"
#include "net/cpu_net.h"
#include "net/encoder.h"
#include "net/export.h"
#include "net/model.h"
#include "net/net_evaluator.h"
#include "net/onednn_trunk.h"
#include "net/torch_evaluator.h"
#include "play/mcts_player.h"
#include "run/config.h"
#include "train/losses.h"
#include "train/replay_buffer.h"

namespace loa::app {
namespace {

// The limits of a search of `playouts`.
SearchLimits PlayoutLimit(int playouts) {
  SearchLimits limits;
  limits.playouts = playouts;
  return limits;
}

// Returns evaluations per second of batched self-play with `games` games,
// stepped for at least `seconds`; *mean_batch gets the mean batch size.
double SelfPlayEvaluationsPerSecond(Evaluator& evaluator, int games, double seconds, bool cpu_time,
                                    double* mean_batch) {
  SearchParams params;
  SelfPlayGames plays;
  plays.parallel = games;
  plays.seed = 1;
  SelfPlayDriver driver(&evaluator, params, Rules(), plays);
  std::vector<SelfPlayGame> finished;
  driver.Step(&finished);  // warm-up
  const int64_t first = driver.evaluations();
  long steps = 0;
  Timer timer(cpu_time);
  do {
    driver.Step(&finished);
    finished.clear();
    ++steps;
  } while (timer.WallSeconds() < seconds);
  const int64_t evaluations = driver.evaluations() - first;
  *mean_batch = double(evaluations) / steps;
  return evaluations / timer.Seconds();
}

}  // namespace

int BenchMcts(const NetChoice& choice, int threads, int playouts, int games, double seconds, bool cpu_time) {
  std::printf(
      "bench mcts: one game from the start with %d search thread%s; self-play: %d games advanced together "
      "(1 thread)\nrates per second of %s; load average %.2f on %d cpus\n",
      threads, threads == 1 ? "" : "s", games, cpu_time ? "process CPU time" : "wall-clock time", LoadAverage(),
      std::thread::hardware_concurrency());
  UniformEvaluator uniform;
  int64_t done = 0;
  double rate = SearchPlayoutsPerSecond(uniform, threads, PlayoutLimit(playouts), cpu_time, &done);
  std::printf("  uniform  one game:  %9.0f playouts/s (%lld playouts)\n", rate, static_cast<long long>(done));
  double mean_batch = 0;
  rate = SelfPlayEvaluationsPerSecond(uniform, games, seconds, cpu_time, &mean_batch);
  std::printf("  uniform  self-play: %9.0f playouts/s (leaf evaluations; mean batch %.1f)\n", rate, mean_batch);

  ExportedNet net = choice.Load();
  std::printf("net %s%s, %.1f MFLOP per position; no NN cache (every playout reaches the net)\n",
              net.config.ShortName().c_str(), choice.file.empty() ? " (fresh)" : (" " + choice.file).c_str(),
              net.config.FlopsPerPosition() / 1e6);
  // The engine: each search thread evaluates its own leaves, each backend
  // of the table in each of its precisions.
  NetEvaluatorOptions options;
  options.inference_threads = 1;
  options.max_batch = games;
  options.batch_wait_us = 0;
  options.device = "cpu";
  for (const BackendVariant& v : BackendVariants(net, options)) {
    rate = SearchPlayoutsPerSecond(*v.evaluator, threads, PlayoutLimit(std::max(10, playouts / 20)), cpu_time, &done);
    std::printf("  %-10s one game:  %9.0f playouts/s (%lld playouts, batch 1 per thread)\n", v.name.c_str(), rate,
                static_cast<long long>(done));
  }
  // Self-play: one batch of every game's leaves per step, on each backend;
  // the bare net's rate at the same batch is the ceiling.
  options.inference_threads = threads;
  std::printf("  (inference threads: %d)\n", threads);
  for (const BackendVariant& v : BackendVariants(net, options)) {
    Evaluator* evaluator = v.evaluator.get();
    const std::string& name = v.name;
    rate = SelfPlayEvaluationsPerSecond(*evaluator, games, seconds, cpu_time, &mean_batch);
    const int batch = std::max(1, int(mean_batch + 0.5));
    const double bare = EvaluationsPerSecond(*evaluator, RandomPositions(batch, 777), batch, seconds, cpu_time);
    std::printf(
        "  %-10s self-play: %9.0f playouts/s (mean batch %.1f); bare net at batch %d: %.0f eval/s; "
        "search keeps %.1f%%\n",
        name.c_str(), rate, mean_batch, batch, bare, 100 * rate / bare);
  }
  return 0;
}

}  // namespace loa::app
