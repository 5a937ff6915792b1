// One 3x3 convolution of the trunk (32 -> 32 channels on 8x8, the shipped
// net's shape) on oneDNN (net/onednn_trunk.h), in float32 and in int8
// (quantizing the input included), at batch 1 and 64, on one thread; and
// the shipped net's whole forward pass (trunk and heads, encoded positions
// in, logits out) at batch 64 in both precisions: a target to profile.
//
//   OMP_NUM_THREADS=1 build/bench/conv_bench --benchmark_min_time=1

#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>
#include "core/random.h"

#include "core/random_play.h"
#include "net/cpu_net.h"
#include "net/encoder.h"
#include "net/export.h"
#include "net/onednn_trunk.h"

namespace loa {
namespace {

constexpr int kChannels = 32;

void BM_TrunkConv(benchmark::State& state) {
  const int batch = int(state.range(0));
  const bool int8 = state.range(1) != 0;
  Rng rng(1);
  auto normal = [&rng] { return float(rng.Normal()); };
  TrunkConvWeights w;
  w.out = w.in = kChannels;
  w.weight.resize(kChannels * kChannels * 9);
  for (float& x : w.weight) x = normal() / std::sqrt(9.0f * kChannels);
  w.scale.assign(kChannels, 1.0f);
  w.bias.assign(kChannels, 0.0f);
  ChannelRanges range{std::vector<float>(kChannels, 0.0f), std::vector<float>(kChannels, 3.0f)};
  OneDnnTrunk trunk({w}, int8 ? OneDnnTrunk::Type::kInt8 : OneDnnTrunk::Type::kFp32, {QuantizedIo::FloatInput(range)});
  std::vector<float> in(std::size_t(batch) * 64 * kChannels), out(in.size());
  for (float& x : in) x = std::abs(normal());
  std::vector<unsigned char> scratch(trunk.ScratchBytes(batch));
  OneDnnBindings bindings;
  for (auto _ : state) {
    trunk.Run(0, batch, in.data(), nullptr, out.data(), scratch.data(), bindings);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["positions/s"] = benchmark::Counter(double(state.iterations()) * batch, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(state.iterations()) * batch * 2.0 * 64 * kChannels * kChannels * 9 / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(int8 ? "int8" : "fp32");
}
BENCHMARK(BM_TrunkConv)->Args({1, 0})->Args({64, 0})->Args({1, 1})->Args({64, 1});

void BM_NetForward(benchmark::State& state) {
  const int batch = int(state.range(0));
  const Precision precision = state.range(1) != 0 ? Precision::kInt8 : Precision::kFp32;
  static const ExportedNet net = ReadExport(LOAZ_DEFAULT_NET);
  const CpuNet cpu(net, precision);
  CpuNet::WorkspacePtr workspace = cpu.NewWorkspace();
  const std::vector<Position> positions = RandomPositions(batch, 7);
  std::vector<float> input(std::size_t(batch) * net.config.input_planes() * 64);
  EncodePositions(positions.data(), batch, input.data(), net.config.features());
  std::vector<float> policy(std::size_t(batch) * kPolicySize), value(batch * 3), moves_left(batch);
  for (auto _ : state) {
    cpu.Forward(input.data(), batch, policy.data(), value.data(), moves_left.data(), *workspace);
    benchmark::DoNotOptimize(policy.data());
  }
  state.counters["positions/s"] = benchmark::Counter(double(state.iterations()) * batch, benchmark::Counter::kIsRate);
  state.SetLabel(PrecisionName(precision));
}
BENCHMARK(BM_NetForward)->Args({64, 0})->Args({64, 1});

}  // namespace
}  // namespace loa
