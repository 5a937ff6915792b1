#pragma once
// Helpers of the `loaz bench` figures (app/cmd_bench.cpp,
// app/bench_scaling.cpp): clocks, the engine's playouts a second, a random
// training batch and the trainer's step rate.

#include <chrono>
#include <cstdint>

#include <torch/torch.h>

#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "net/encoder.h"
#include "net/net_config.h"
#include "train/replay_buffer.h"

namespace loa::app {

using Clock = std::chrono::steady_clock;

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Returns the CPU seconds used by this process so far (all threads).
double ProcessCpuSeconds();

// Measures wall-clock time, or this process's CPU time (all threads) when
// cpu_time: robust on a loaded machine for one thread.
class Timer {
 public:
  explicit Timer(bool cpu_time) : cpu_time_(cpu_time), wall_start_(Clock::now()), cpu_start_(ProcessCpuSeconds()) {}
  double WallSeconds() const { return SecondsSince(wall_start_); }
  double Seconds() const { return cpu_time_ ? ProcessCpuSeconds() - cpu_start_ : WallSeconds(); }

 private:
  bool cpu_time_;
  Clock::time_point wall_start_;
  double cpu_start_;
};

// Returns the system's load average over the last minute.
double LoadAverage();

// Returns playouts per second of one engine search from the start position
// within `limits` (early stop off) with `params` on `threads` threads (no
// tree reuse); *done gets its playouts.
double SearchPlayoutsPerSecond(Evaluator& evaluator, int threads, SearchLimits limits, bool cpu_time, int64_t* done,
                               SearchParams params = SearchParams());

// Returns a training batch of n random positions: targets uniform over the
// legal moves, random outcomes (the step's cost does not depend on them).
train::Batch RandomBatch(int n, InputFeatures features);

// Returns samples per second of the trainer's step (losses, backward, clip,
// SGD) on batch, in `precision`, over at least `seconds` after a warm-up
// step; *loss gets the last step's policy + value loss.
double TrainStepRate(const NetConfig& config, const train::Batch& batch, const char* precision,
                     const torch::Device& device, double seconds, bool cpu_time, double* loss);

// The same in fp32 on the cpu.
double TrainSamplesPerSecond(const NetConfig& config, const train::Batch& batch, double seconds, bool cpu_time,
                             double* loss);

}  // namespace loa::app
