// loaz bench: speed figures, side by side in one run. `bench net`: network
// evaluations per second of each evaluator backend (net/backends.h) by batch size; `bench mcts`:
// playouts per second of the engine's search and of batched self-play, with
// the uniform evaluator and with a net; `bench train`: samples per second of
// the trainer's step in each precision. `--device cuda` puts `net` and
// `train` on the GPU; `bench scaling`: each at 1, 2, 4, ... threads against
// linear. Thread counts go with every figure.

#include "app/bench_ab.h"
#include "app/bench_scaling.h"
#include "app/bench_util.h"
#include "app/cli.h"

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
  cli->add_option("--features", net.config.input_features, "input set of the fresh net")
      ->check(CLI::IsMember(InputFeaturesNames()))
      ->capture_default_str()
      ->excludes(file);
}

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

// An evaluator of the backends' table in one of its precisions.
struct BackendVariant {
  std::string name;  // "cpu int8"
  std::unique_ptr<Evaluator> evaluator;
  bool int8 = false;
};

// Every backend of this program that runs on the cpu, in every precision
// it takes there, in the table's order (net/backends.h): a new backend
// shows up in `bench net` and `bench mcts` by its row alone.
std::vector<BackendVariant> CpuBackendVariants(const ExportedNet& net, NetEvaluatorOptions options) {
  std::vector<BackendVariant> variants;
  options.device = "cpu";
  for (const BackendInfo& backend : DescribeBackends()) {
    if (!backend.missing.empty()) continue;
    for (const BackendDevice& on : backend.devices) {
      if (on.device != "cpu") continue;
      for (const std::string& precision : on.precisions) {
        options.backend = backend.name;
        options.precision = precision;
        variants.push_back({backend.name + " " + precision, MakeBackendEvaluator(ChooseBackend(options), net, options),
                            precision == "int8"});
      }
    }
  }
  return variants;
}

// `bench net --device cuda`: LibTorch on the GPU in each precision and
// memory layout (NCHW, channels-last NHWC), by batch size. Each call copies
// its batch in and the results back, as self-play's do.
int BenchNetCuda(const ExportedNet& net, NetEvaluatorOptions options, const std::vector<int>& batches, double seconds) {
  const double flops = net.config.FlopsPerPosition();
  std::printf("bench net: %s, %.1f MFLOP per position, encoder v%d, LibTorch on cuda\n", net.config.ShortName().c_str(),
              flops / 1e6, kEncoderVersion);
  std::printf("rates per second of wall-clock time; load average %.2f on %d cpus\n\n", LoadAverage(),
              std::thread::hardware_concurrency());
  options.device = "cuda";
  struct Variant {
    std::string name;
    std::unique_ptr<TorchEvaluator> evaluator;
  };
  // Each precision in channels-last with and without CUDA graphs, then
  // fp32 in the old layout (NCHW, no graphs) last: the ratios' base.
  struct Arm {
    const char* precision;
    bool channels_last, graphs;
  };
  std::vector<Variant> variants;
  for (const Arm& arm : {Arm{"bf16", true, true}, Arm{"bf16", true, false}, Arm{"fp16", true, true},
                         Arm{"fp32", true, true}, Arm{"fp32", true, false}, Arm{"fp32", false, false}}) {
    options.precision = arm.precision;
    options.channels_last = arm.channels_last;
    options.cuda_graphs = arm.graphs;
    auto evaluator = std::make_unique<TorchEvaluator>(net, options);
    if (arm.graphs && evaluator->graph_shapes() == 0) continue;  // a build without them, or a failed capture (said)
    variants.push_back(
        {std::string(arm.precision) + (arm.channels_last ? " nhwc" : " nchw") + (arm.graphs ? " graph" : ""),
         std::move(evaluator)});
  }
  const std::vector<Position> positions = RandomPositions(options.max_batch, 12345);
  std::printf("%6s  %-21s %12s %10s %10s\n", "batch", "evaluator", "eval/s", "GFLOP/s", "vs fp32");
  for (int batch : batches) {
    std::vector<double> rates;
    for (Variant& v : variants) rates.push_back(EvaluationsPerSecond(*v.evaluator, positions, batch, seconds, false));
    for (std::size_t i = 0; i < rates.size(); ++i)
      std::printf("%6d  cuda %-16s %12.0f %10.1f %9.2fx\n", batch, variants[i].name.c_str(), rates[i],
                  rates[i] * flops / 1e9, rates[i] / rates.back());
    std::fflush(stdout);
  }
  return 0;
}

int BenchNet(const NetChoice& choice, const std::string& device, int threads, const std::vector<int>& batches,
             double seconds, bool cpu_time) {
  ExportedNet net = choice.Load();
  const double flops = net.config.FlopsPerPosition();
  NetEvaluatorOptions options;
  options.inference_threads = threads;
  options.max_batch = *std::max_element(batches.begin(), batches.end());
  options.batch_wait_us = 0;
  if (ResolveDevice(device) == "cuda") return BenchNetCuda(net, options, batches, seconds);
  const std::vector<BackendVariant> variants = CpuBackendVariants(net, options);
  const PeakRates peak = MachinePeak(threads);
  std::printf("bench net: %s%s, %.1f MFLOP per position, encoder v%d\n", net.config.ShortName().c_str(),
              choice.file.empty() ? " (fresh)" : (" " + choice.file).c_str(), flops / 1e6, kEncoderVersion);
  std::printf("threads: %d inference threads (LibTorch intra-op %d; cpu: chunks of a batch over OpenMP)\n", threads,
              TorchIntraOpThreads());
  std::printf("cpu: layers on %s; the global pooling and the heads' last layers on Eigen\n",
              CpuKernelsSummary().c_str());
  std::printf("peak estimate: fp32 %.0f GFLOP/s = %s; int8 %.0f GOP/s = %s\n", peak.fp32, peak.fp32_how.c_str(),
              peak.int8, peak.int8_how.c_str());
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
  std::printf("%6s  %-12s %12s %10s %8s %10s\n", "batch", "backend", "eval/s", "GFLOP/s", "% peak", "vs cpu fp32");
  for (int batch : batches) {
    std::vector<double> rates;
    double base = 0;  // the cpu backend's fp32: the ratios' base
    for (const BackendVariant& v : variants) {
      rates.push_back(EvaluationsPerSecond(*v.evaluator, positions, batch, seconds, cpu_time));
      if (v.name == "cpu fp32") base = rates.back();
    }
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const double rate = rates[i], precision_peak = variants[i].int8 ? peak.int8 : peak.fp32;
      std::printf("%6d  %-12s %12.0f %10.1f %7.1f%% %9.2fx\n", batch, variants[i].name.c_str(), rate,
                  rate * flops / 1e9, 100 * rate * flops / 1e9 / precision_peak, base > 0 ? rate / base : 0.0);
    }
    std::fflush(stdout);
  }
  return 0;
}

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
  SelfPlayDriver driver(&evaluator, params, Rules(), games, /*seed=*/1);
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
  for (const BackendVariant& v : CpuBackendVariants(net, options)) {
    rate = SearchPlayoutsPerSecond(*v.evaluator, threads, PlayoutLimit(std::max(10, playouts / 20)), cpu_time, &done);
    std::printf("  %-10s one game:  %9.0f playouts/s (%lld playouts, batch 1 per thread)\n", v.name.c_str(), rate,
                static_cast<long long>(done));
  }
  // Self-play: one batch of every game's leaves per step, on each backend;
  // the bare net's rate at the same batch is the ceiling.
  options.inference_threads = threads;
  std::printf("  (inference threads: %d)\n", threads);
  for (const BackendVariant& v : CpuBackendVariants(net, options)) {
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

// `bench scaling`'s options, as parsed.
struct ScalingCommand {
  CLI::App* app = nullptr;
  ScalingOptions so;
  int max_threads = 0;
  bool skip_train = false, skip_search = false;
  std::vector<std::string> search_settings, versus_settings;  // KEY=VALUE each
};

// Adds `bench scaling` to cli, parsing into *c.
void AddScalingCommand(CLI::App& cli, NetChoice& net_choice, ScalingCommand* c) {
  CLI::App* scaling = c->app = cli.add_subcommand(
      "scaling", "rates at 1, 2, 4, ... threads against linear: engine search, self-play workers, trainer");
  AddNetOptions(scaling, net_choice);
  ScalingOptions& so = c->so;
  scaling->add_option("--playouts", so.playouts, "playouts of a self-play move (configs/default.yaml's)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  auto* max_option = scaling->add_option("--max-threads", c->max_threads, "1, 2, 4, ... up to this (default: the cpus)")
                         ->check(CLI::Range(1, 256));
  scaling->add_option("--counts", so.counts, "the thread and worker counts to measure, e.g. 1 2 4 8 14 16")
      ->check(CLI::Range(1, 256))
      ->excludes(max_option);
  scaling->add_option("--seconds", so.seconds, "time per figure")->capture_default_str()->check(CLI::Range(0.1, 600.0));
  scaling->add_option("--rounds", so.rounds, "the engine search's figures: the median of this many rounds")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  scaling->add_option("--games", so.games, "games of each self-play worker")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  scaling->add_flag("--no-train", c->skip_train, "leave out the trainer's figures");
  scaling->add_flag("--no-search", c->skip_search, "leave out the engine search's figures");
  scaling->add_option("--selfplay-device", so.selfplay_device, "the self-play workers' net: int8 on the cpu, or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  scaling->add_option("--precision", so.precision, "the net's precision on cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  scaling->add_option("--in-flight", so.in_flight, "forward passes in flight at once on cuda")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  scaling
      ->add_option("--cuda-graphs", so.cuda_graphs, "cuda: replay each batch shape's captured pass (on) or not (off)")
      ->capture_default_str()
      ->transform(CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}));
  scaling->add_option("--search", c->search_settings,
                      "the engine search's settings, KEY=VALUE ... (the search's keys of an mcts: spec, those of the "
                      "config's mcts section, e.g. leaves_per_batch=4; not the net's keys such as net=)");
  scaling->add_option("--versus", c->versus_settings,
                      "a second setting of the engine search, KEY=VALUE ... over --search's, measured in the same "
                      "rounds, turn about with the first");
}

// Sets params' keys from `option`'s KEY=VALUE settings; throws UsageError
// naming the option and the setting.
void ApplySearchSettings(const std::vector<std::string>& list, const char* option, SearchParams* params) {
  std::map<std::string, std::string> settings;
  try {
    settings = KeyValueMap(list, option);
  } catch (const ParseError& e) {
    throw UsageError(e.what());
  }
  MapParamReader reader(settings, option);
  params->Visit(reader);
  if (!reader.UnknownKeys().empty())
    throw UsageError(std::string(option) + ": unknown key '" + reader.UnknownKeys().front() + "'");
}

// Runs `bench scaling` as c asks.
int RunScaling(NetChoice& net_choice, ScalingCommand* c) {
  ScalingOptions& so = c->so;
  so.max_threads = c->max_threads;
  so.train = !c->skip_train;
  so.search = !c->skip_search;
  // The engine's search as `loaz gtp` runs it (its play-time levers, four
  // leaves a call), with --search's settings over them, and --versus's
  // over those.
  so.search_params = EngineSearchParams();
  ApplySearchSettings(c->search_settings, "--search", &so.search_params);
  if (!c->versus_settings.empty()) {
    so.versus_params = so.search_params;
    ApplySearchSettings(c->versus_settings, "--versus", &*so.versus_params);
    for (const std::string& setting : c->versus_settings)
      so.versus_name += (so.versus_name.empty() ? "" : " ") + setting;
  }
  return BenchScaling(net_choice.Load(), net_choice.file.empty() ? "(fresh)" : net_choice.file, so);
}

}  // namespace

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
