// loaz bench net: network evaluations per second of each evaluator backend
// (net/backends.h) by batch size, on the cpu or on cuda.

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

// Returns the nanoseconds EncodePositions takes per position for an input set.
double EncodeNanoseconds(const std::vector<Position>& positions, InputFeatures features, double seconds,
                         bool cpu_time) {
  std::vector<float> buffer(positions.size() * NumInputPlanes(features) * kNumSquares);
  long calls = 0;
  Timer timer(cpu_time);
  do {
    EncodePositions(positions.data(), int(positions.size()), buffer.data(), features);
    ++calls;
  } while (timer.WallSeconds() < seconds / 4);
  return timer.Seconds() / (double(calls) * positions.size()) * 1e9;
}

// The machine's peak rates on `threads` cores for the instructions
// oneDNN's kernels use here (OneDnnIsa: what the processor has, or a cap
// of ONEDNN_MAX_CPU_ISA): float32 is clock x FMA lanes (AVX-512: 16,
// AVX2: 8) x 2 FMA units x 2 flops, where AMD's Zen 4 (family 25) runs a
// 512-bit operation on both of its 256-bit units; int8 with VNNI is four
// times that (vpdpbusd adds four byte products into each 32-bit lane where
// an FMA does one), with AMX (which oneDNN's int8 kernels use where the
// processor has it) clock x 1024 multiply-adds x 2 ops, a tile multiply's
// rate, and without either twice float32 (vpmaddubsw's 16-bit pairs).
// The clock is measured (MeasuredGhz), not the nominal one /proc/cpuinfo
// gives, which cores that boost outrun.
struct PeakRates {
  double fp32 = 0, int8 = 0;  // G operations per second
  std::string fp32_how, int8_how;
};

// Returns the clock this core runs at, in GHz: the rate of a chain of
// dependent additions, one a cycle (x86-64; elsewhere 0).
double MeasuredGhz() {
#if defined(__x86_64__)
  const auto start = std::chrono::steady_clock::now();
  constexpr long kIterations = 20'000'000;
  uint64_t x = 0;
  for (long i = 0; i < kIterations; ++i)
    asm volatile(
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
        : "+r"(x));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 10.0 * kIterations / seconds / 1e9;
#else
  return 0;
#endif
}

PeakRates MachinePeak(int threads) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  double mhz = 0;
  int family = 0;
  bool avx512 = false, avx2 = false, amx = false, vnni = false, amd = false;
  while (std::getline(cpuinfo, line)) {
    if (mhz == 0 && line.rfind("cpu MHz", 0) == 0) mhz = std::stod(line.substr(line.find(':') + 1));
    if (family == 0 && line.rfind("cpu family", 0) == 0) family = std::stoi(line.substr(line.find(':') + 1));
    if (line.rfind("vendor_id", 0) == 0) amd = amd || line.find("AuthenticAMD") != std::string::npos;
  }
  // The instructions oneDNN's kernels use (ONEDNN_MAX_CPU_ISA may cap them
  // below what the processor has).
  const std::string isa = OneDnnIsa();
  avx512 = isa.rfind("avx512", 0) == 0 || isa == "amx";
  avx2 = avx512 || isa.rfind("avx2", 0) == 0;
  amx = isa == "amx";
  vnni = isa.find("vnni") != std::string::npos || isa == "avx512+bf16";
  const int lanes = avx512 ? 16 : avx2 ? 8 : 4;
  const bool split_512 = avx512 && amd && family == 25;
  const int units = split_512 ? 1 : 2;
  const double measured = MeasuredGhz(), clock = measured > 0 ? measured : mhz / 1000, ghz = threads * clock;
  PeakRates peak;
  peak.fp32 = ghz * lanes * units * 2;
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, "%d core%s x %.2f GHz (%s) x %d lanes (%s) x %d FMA unit%s%s x 2 flops", threads,
                threads == 1 ? "" : "s", clock, measured > 0 ? "measured" : "nominal", lanes,
                avx512 ? "AVX-512"
                : avx2 ? "AVX2"
                       : "SSE",
                units, units == 1 ? "" : "s", split_512 ? " (Zen 4: two 256-bit halves)" : "");
  peak.fp32_how = buffer;
  if (amx) {
    peak.int8 = ghz * 1024 * 2;
    peak.int8_how = "AMX: 1024 int8 multiply-adds a cycle a core";
  } else if (vnni) {
    peak.int8 = 4 * peak.fp32;
    peak.int8_how = "four times that (VNNI: vpdpbusd, four byte products a 32-bit lane)";
  } else {
    peak.int8 = 2 * peak.fp32;
    peak.int8_how = "twice that\n  (without VNNI, vpmaddubsw does 32 byte products where an FMA does 8 or 16 floats)";
  }
  return peak;
}

}  // namespace

// Returns evaluations per second of evaluator on batches of `batch`
// positions, run for at least `seconds` after one warm-up call.
double EvaluationsPerSecond(Evaluator& evaluator, const std::vector<Position>& positions, int batch, double seconds,
                            bool cpu_time) {
  std::vector<EvalOutput> out(batch);
  evaluator.Evaluate(positions.data(), batch, out.data());
  long calls = 0;
  Timer timer(cpu_time);
  do {
    evaluator.Evaluate(positions.data(), batch, out.data());
    ++calls;
  } while (timer.WallSeconds() < seconds || calls < 3);
  return calls * batch / timer.Seconds();
}

// Every backend of this program that runs on options.device, in every
// precision it takes there, in the table's order (net/backends.h): a new
// backend or precision shows up in `bench net` by its row alone.
std::vector<BackendVariant> BackendVariants(const ExportedNet& net, const NetEvaluatorOptions& options) {
  std::vector<BackendVariant> variants;
  for (const BackendInfo& backend : DescribeBackends()) {
    if (!backend.missing.empty()) continue;
    for (const BackendDevice& on : backend.devices) {
      if (on.device != options.device) continue;
      for (const std::string& precision : on.precisions) {
        NetEvaluatorOptions variant = options;
        variant.backend = backend.name;
        variant.precision = precision;
        variants.push_back(
            {backend.name + " " + precision, MakeBackendEvaluator(ChooseBackend(variant), net, variant), precision});
      }
    }
  }
  return variants;
}

int BenchNet(const NetChoice& choice, const std::string& device, int threads, const std::vector<int>& batches,
             double seconds, bool cpu_time) {
  ExportedNet net = choice.Load();
  const double flops = net.config.FlopsPerPosition();
  NetEvaluatorOptions options;
  options.inference_threads = threads;
  options.max_batch = *std::max_element(batches.begin(), batches.end());
  options.batch_wait_us = 0;
  options.device = ResolveDevice(device);
  const bool cpu = options.device == "cpu";
  const std::vector<BackendVariant> variants = BackendVariants(net, options);
  const PeakRates peak = cpu ? MachinePeak(threads) : PeakRates();
  std::printf("bench net: %s%s, %.1f MFLOP per position, encoder v%d, on %s\n", net.config.ShortName().c_str(),
              choice.file.empty() ? " (fresh)" : (" " + choice.file).c_str(), flops / 1e6, kEncoderVersion,
              options.device.c_str());
  if (cpu) {
    std::printf("threads: %d inference threads (LibTorch intra-op %d; cpu: chunks of a batch over OpenMP)\n", threads,
                TorchIntraOpThreads());
    std::printf("cpu: layers on %s; the global pooling and the heads' last layers on Eigen\n",
                CpuKernelsSummary().c_str());
    std::printf("peak estimate: fp32 %.0f GFLOP/s = %s; int8 %.0f GOP/s = %s\n", peak.fp32, peak.fp32_how.c_str(),
                peak.int8, peak.int8_how.c_str());
  }
  std::printf("rates per second of %s; load average %.2f on %d cpus; OPENBLAS_CORETYPE=%s\n",
              cpu_time ? "process CPU time" : "wall-clock time", LoadAverage(), std::thread::hardware_concurrency(),
              std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "(unset)");
  std::vector<Position> positions = RandomPositions(options.max_batch, 12345);
  // Every input set, so that the added planes' cost stands next to the
  // net's (the net encodes with its own: net.config.input_features).
  std::printf("encoding (batches of %d into one buffer), per position:", options.max_batch);
  for (const std::string& name : InputFeaturesNames())
    std::printf(" %s %.0f ns,", name.c_str(), EncodeNanoseconds(positions, InputFeaturesOf(name), seconds, cpu_time));
  std::printf(" this net: %s\n\n", net.config.input_features.c_str());
  // The ratios' base: the first row in fp32 ("cpu fp32" on the cpu, "torch
  // fp32" on cuda); a GPU's peak is not estimated.
  std::printf("%6s  %-12s %12s %10s %8s %10s\n", "batch", "backend", "eval/s", "GFLOP/s", "% peak", "vs fp32");
  for (int batch : batches) {
    std::vector<double> rates;
    double base = 0;
    for (const BackendVariant& v : variants) {
      rates.push_back(EvaluationsPerSecond(*v.evaluator, positions, batch, seconds, cpu_time));
      if (base == 0 && v.precision == "fp32") base = rates.back();
    }
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const double rate = rates[i], gflops = rate * flops / 1e9;
      const double precision_peak = !cpu ? 0 : variants[i].precision == "int8" ? peak.int8 : peak.fp32;
      char of_peak[16] = "-";
      if (precision_peak > 0) std::snprintf(of_peak, sizeof of_peak, "%.1f%%", 100 * gflops / precision_peak);
      std::printf("%6d  %-12s %12.0f %10.1f %8s %9.2fx\n", batch, variants[i].name.c_str(), rate, gflops, of_peak,
                  base > 0 ? rate / base : 0.0);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace loa::app
