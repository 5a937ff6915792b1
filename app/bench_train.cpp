// loaz bench train: samples per second of the trainer's step in each precision.

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

// Samples per second of the trainer's step (losses, backward, clip, SGD) at
// each precision, on the cpu with LibTorch's intra-op threads or on cuda.
int BenchTrain(const NetChoice& choice, const std::string& device_name, int threads, int batch_size, double seconds,
               bool cpu_time) {
  torch::set_num_threads(threads);
  NetConfig config = choice.file.empty() ? choice.config : choice.Load().config;
  const train::Batch batch = RandomBatch(batch_size, config.features());
  const bool cuda = ResolveDevice(device_name) == "cuda";
  const torch::Device device = cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  std::printf(
      "bench train: %s%s on %s, batch %d, %d intra-op thread%s\nrates per second of %s; load average %.2f on %d "
      "cpus\n",
      config.ShortName().c_str(), choice.file.empty() ? " (fresh)" : (" " + choice.file).c_str(), cuda ? "cuda" : "cpu",
      batch_size, threads, threads == 1 ? "" : "s", cpu_time ? "process CPU time" : "wall-clock time", LoadAverage(),
      std::thread::hardware_concurrency());
  // Without bf16 dot products (AVX512_BF16 or AMX) oneDNN converts to float
  // and back: bf16 then costs more than it saves.
  const bool bf16_native = cuda || __builtin_cpu_supports("avx512bf16") || __builtin_cpu_supports("amx-bf16");
  std::printf("bf16 dot products: %s\n", bf16_native ? "yes" : "no (bf16 is emulated here)");
  std::printf("%-10s %12s %12s %10s\n", "precision", "samples/s", "vs fp32", "loss");
  double fp32 = 0;
  for (const char* precision : {"fp32", "bf16"}) {
    double loss = 0;
    const double rate = TrainStepRate(config, batch, precision, device, seconds, cpu_time, &loss);
    if (fp32 == 0) fp32 = rate;
    std::printf("%-10s %12.0f %11.2fx %10.3f\n", precision, rate, rate / fp32, loss);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace loa::app
