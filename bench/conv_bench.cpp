// One 3x3 convolution of the trunk (32 -> 32 channels on 8x8, the shipped
// net's shape) per position, in every way this machine can run it: the
// project's direct convolution in float32 on each instruction set and in
// int8, and, where oneDNN (Debian's libdnnl-dev) was found at configure
// time, oneDNN's JIT convolution in float32 and int8 (u8 activations, s8
// weights, int32 sums, per-channel output scales) at batch 1 and 64. The
// comparison that chose the project's own kernels (docs/DESIGN.md, Network).
//
//   build/bench/conv_bench --benchmark_min_time=1

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "net/cpu_features.h"
#include "net/direct_conv.h"

#ifdef LOAZ_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace loa {
namespace {

constexpr int kChannels = 32;

struct Data {
  std::vector<float> weight, bias, scale, input;
  Data() : weight(kChannels * kChannels * 9), bias(kChannels), scale(kChannels, 1.0f), input(kChannels * 64) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    for (float& x : weight) x = normal(rng) / std::sqrt(9.0f * kChannels);
    for (float& x : bias) x = 0.1f * normal(rng);
    for (float& x : input) x = std::abs(normal(rng));
  }
};

void SetRates(benchmark::State& state, int positions) {
  state.counters["positions/s"] =
      benchmark::Counter(double(state.iterations()) * positions, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(state.iterations()) * positions * 2.0 * 64 * kChannels * kChannels * 9 / 1e9, benchmark::Counter::kIsRate);
}

void BM_DirectFp32(benchmark::State& state) {
  const auto isa = DirectConv::Isa(state.range(0));
  if (isa == DirectConv::Isa::kAvx512 && !Cpu().avx512f) return state.SkipWithError("no AVX-512 here");
  if (isa == DirectConv::Isa::kAvx2 && !Cpu().avx2_fma) return state.SkipWithError("no AVX2 here");
  Data d;
  DirectConv conv(d.weight.data(), kChannels, kChannels, 3, d.scale.data(), d.bias.data());
  std::vector<float> in(kChannels * kPaddedPlane), out(kChannels * kPaddedPlane);
  PadPlanes(d.input.data(), kChannels, in.data());
  for (auto _ : state) {
    conv.RunWith(isa, in.data(), nullptr, true, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(DirectConv::IsaName(isa));
  SetRates(state, 1);
}
BENCHMARK(BM_DirectFp32)->Arg(0)->Arg(1)->Arg(2);

void BM_DirectInt8(benchmark::State& state) {
  Data d;
  Int8Conv conv(
      d.weight.data(), kChannels, kChannels, d.scale.data(), d.bias.data(),
      ActivationQuantizer::ForRanges(std::vector<float>(kChannels, 0.0f), std::vector<float>(kChannels, 4.0f)));
  std::vector<float> in(kChannels * kPaddedPlane), out(kChannels * kPaddedPlane);
  std::vector<uint8_t> quantized(conv.input_bytes());
  PadPlanes(d.input.data(), kChannels, in.data());
  for (auto _ : state) {
    conv.Run(in.data(), quantized.data(), nullptr, true, out.data());  // quantizing included
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(Cpu().avx2_fma ? "avx2" : "portable");
  SetRates(state, 1);
}
BENCHMARK(BM_DirectInt8);

#ifdef LOAZ_HAVE_DNNL
// oneDNN's convolution, ReLU fused, NHWC activations; the primitive chooses
// its own weight layout (format any) and the weights are reordered once.
void BM_OneDnn(benchmark::State& state) {
  const int batch = int(state.range(0));
  const bool int8 = state.range(1) != 0;
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  using dt = memory::data_type;
  using tag = memory::format_tag;
  const dt src_type = int8 ? dt::u8 : dt::f32, weight_type = int8 ? dt::s8 : dt::f32;
  memory::desc src({batch, kChannels, 8, 8}, src_type, tag::nhwc);
  memory::desc weights({kChannels, kChannels, 3, 3}, weight_type, tag::any);
  memory::desc bias({kChannels}, dt::f32, tag::x);
  memory::desc dst({batch, kChannels, 8, 8}, dt::f32, tag::nhwc);
  convolution_forward::desc desc(prop_kind::forward_inference, algorithm::convolution_direct, src, weights, bias, dst,
                                 {1, 1}, {1, 1}, {1, 1});
  primitive_attr attr;
  post_ops ops;
  ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(ops);
  if (int8) attr.set_output_scales(2, std::vector<float>(kChannels, 0.01f));
  convolution_forward::primitive_desc pd(desc, attr, eng);
  memory src_m(pd.src_desc(), eng), weights_m(pd.weights_desc(), eng), bias_m(bias, eng), dst_m(pd.dst_desc(), eng);
  std::vector<float> zeros(kChannels, 0.0f);
  std::memcpy(bias_m.get_data_handle(), zeros.data(), sizeof(float) * kChannels);
  std::memset(src_m.get_data_handle(), 1, pd.src_desc().get_size());
  std::memset(weights_m.get_data_handle(), 1, pd.weights_desc().get_size());
  convolution_forward conv(pd);
  for (auto _ : state) {
    conv.execute(
        s, {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, weights_m}, {DNNL_ARG_BIAS, bias_m}, {DNNL_ARG_DST, dst_m}});
    s.wait();
  }
  state.SetLabel(std::string(int8 ? "int8 " : "fp32 ") + pd.impl_info_str());
  SetRates(state, batch);
}
BENCHMARK(BM_OneDnn)->Args({1, 0})->Args({64, 0})->Args({1, 1})->Args({64, 1});
#endif

}  // namespace
}  // namespace loa
