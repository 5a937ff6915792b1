#include "net/onednn_trunk.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "core/error.h"

namespace loa {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// The largest batch whose primitives a forward pass finds without a lock:
// the cpu evaluator's chunks (net/cpu_net.cpp) are at most 64 positions.
constexpr int kFastBatch = 64;

const dnnl::engine& Engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The bound entries alive in the process (OneDnnBindings::LiveEntries).
std::atomic<int64_t> live_entries{0};

}  // namespace

bool WideByteSums() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2_vnni:
    case dnnl::cpu_isa::avx512_core_vnni:
    case dnnl::cpu_isa::avx512_core_bf16:
    case dnnl::cpu_isa::avx512_core_amx:
      return true;
    default:
      return false;
  }
}

const Int8Levels& Levels() {
  static const Int8Levels levels = [] {
    Int8Levels l;
    l.wide = WideByteSums();
    if (!l.wide) {
      // Of the saturation-free schemes for 16-bit sums, 7-bit activations
      // with 8-bit weights keep the nets closest to fp32 (8-bit activations
      // with 7-bit weights: the shipped net's mean prior distance 0.064
      // against 0.028; docs/INFERENCE.md, How many bits).
      l.max_unsigned = 127;
      l.max_weight = 127;
      l.max_signed_weight = 126;
      l.signed_weight_grain = 2;
    }
    return l;
  }();
  return levels;
}

std::string Int8Levels::Describe() const {
  const auto levels = [](float top, int grain) {
    return "+-" + std::to_string(int(top) / grain) + (grain > 1 ? " (x" + std::to_string(grain) + ")" : "");
  };
  return "activations u8 0.." + std::to_string(int(max_unsigned)) + ", weights " + levels(max_weight, 1) +
         ", after a signed input " + levels(max_signed_weight, signed_weight_grain) + "; " +
         (wide ? "32-bit sums" : "16-bit pair sums") + ", saturation-free";
}

float MaxUnsigned() { return Levels().max_unsigned; }

std::vector<float> QuantizationSteps(const ChannelRanges& range) {
  const bool negative = *std::min_element(range.min.begin(), range.min.end()) < 0;
  const float levels = negative ? kMaxSigned : MaxUnsigned();
  std::vector<float> steps(range.max.size());
  for (std::size_t c = 0; c < steps.size(); ++c) {
    const float extent = std::max(range.max[c], -range.min[c]);
    steps[c] = extent > 0 ? extent / levels : 1.0f;
  }
  return steps;
}

ChannelRanges UnionOfRanges(const std::vector<const ChannelRanges*>& ranges) {
  ChannelRanges out = *ranges.at(0);
  for (const ChannelRanges* r : ranges) {
    assert(r->min.size() == out.min.size());
    for (std::size_t c = 0; c < out.min.size(); ++c) {
      out.min[c] = std::min(out.min[c], r->min[c]);
      out.max[c] = std::max(out.max[c], r->max[c]);
    }
  }
  return out;
}

QuantizedIo QuantizedIo::FloatInput(const ChannelRanges& range) {
  QuantizedIo io;
  io.input_step = QuantizationSteps(range);
  io.signed_input = *std::min_element(range.min.begin(), range.min.end()) < 0;
  return io;
}

std::string OneDnnIsa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41:
      return "sse4.1";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2+vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512+vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512+bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "amx";
    default:
      return "other";
  }
}

bool OneDnnHasFastInt8() {
  const std::string isa = OneDnnIsa();
  return isa != "sse4.1" && isa != "avx" && isa != "other";
}

std::string OneDnnVersion() {
  const dnnl_version_t* v = dnnl::version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
         OneDnnIsa() + ")";
}

struct OneDnnTrunk::Layer {
  int out = 0, in = 0, kernel = 3, output_squares = 64;
  bool keep_board = true, relu = true;
  bool signed_input = false;        // int8: the input can be negative (s8, else u8)
  bool quantized_input = false;     // int8: the input arrives in 8 bits
  bool quantized_output = false;    // int8: the output is u8
  std::vector<float> inverse_step;  // int8, float input: 1 / each input channel's step, repeated (Quantize)
  std::vector<float> weight;        // fp32: folded [out][in][k][k]
  std::vector<int8_t> quantized;    // int8: the same times the input steps, quantized per output channel
  std::vector<float> output_scale;  // int8: the int32 sum times this is the output (float, or u8 steps)
  std::vector<float> bias;          // fp32: float; int8: in units of the int32 sum
  std::size_t OutputBytes(int n) const {
    return std::size_t(n) * output_squares * out * (quantized_output ? 1 : sizeof(float));
  }
  mutable std::mutex mutex;
  mutable std::map<std::pair<int, bool>, std::unique_ptr<Primitive>> by_batch;  // by n and sum
  // The primitives of batches up to kFastBatch, by n * 2 + sum, published
  // once made: what every forward pass reads without the lock (taken a
  // layer at a time, it was 5% of a two-thread search's time, `perf`).
  mutable std::array<std::atomic<const Primitive*>, 2 * (kFastBatch + 1)> fast{};
};

struct OneDnnTrunk::Primitive {
  dnnl::convolution_forward conv;
  dnnl::memory weights, bias;
  dnnl::memory::desc src, dst, scratchpad;
  uint64_t id = 0;             // unique in the process: the key of each thread's bound arguments
  std::string implementation;  // oneDNN's name of the kernel
};

namespace {

// A primitive's arguments as one thread binds them: memory objects made once
// and pointed at each call's buffers (making them costs a malloc each).
struct BoundArguments {
  dnnl::memory src, dst, scratchpad;
  std::unordered_map<int, dnnl::memory> args;
};

}  // namespace

// A caller's stream (oneDNN's streams are not shared between threads), its
// arguments bound to each primitive it ran (they hold the layers' weights)
// and its kernels' scratch, as large as the largest kernel it ran needs.
struct OneDnnBindings::Impl {
  dnnl::stream stream{Engine()};
  std::unordered_map<uint64_t, BoundArguments> bound;
  std::vector<uint8_t> kernel_scratch;
  ~Impl() { live_entries -= int64_t(bound.size()); }
};

OneDnnBindings::OneDnnBindings() : impl_(std::make_unique<Impl>()) {}
OneDnnBindings::~OneDnnBindings() = default;
OneDnnBindings::OneDnnBindings(OneDnnBindings&&) noexcept = default;
OneDnnBindings& OneDnnBindings::operator=(OneDnnBindings&&) noexcept = default;
int64_t OneDnnBindings::LiveEntries() { return live_entries.load(); }

namespace {

std::atomic<uint64_t> next_primitive_id{1};

// Returns the implementation to run. oneDNN's first choice for the board's
// 3x3 and 1x1 convolutions is its brgemm kernel; its direct JIT kernels
// ("jit_int8", "jit:") are faster on the 8x8 planes (docs/INFERENCE.md: in
// int8 0.15 ms against 0.19 for 64 positions of a 32 -> 32 3x3
// convolution, in fp32 0.55 against 0.60, Zen 4), so the first of those
// is taken where there is one, except on AMX, whose tile units only the
// brgemm kernels use. Other layers keep oneDNN's choice.
dnnl::convolution_forward::primitive_desc Preferred(dnnl::convolution_forward::primitive_desc pd, bool board) {
  if (!board || dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_amx) return pd;
  dnnl::convolution_forward::primitive_desc candidate = pd;
  do {
    if (std::string(candidate.impl_info_str()).rfind("jit", 0) == 0) return candidate;
  } while (candidate.next_impl());
  return pd;
}

// Writes count NHWC values times the per-channel inverse, rounded to
// nearest, clamped to [low, high]. inverse holds `period` values, the
// channels' repeated: count is a multiple of it, and a period of 64 or
// more keeps the inner loop a whole number of vectors whatever the
// channels (the stem's 16 too).
template <typename T>
void Quantize(const float* __restrict in, std::size_t count, const float* __restrict inverse, int period, float low,
              float high, T* __restrict out) {
  for (std::size_t s = 0; s < count; s += period, in += period, out += period)
    for (int c = 0; c < period; ++c) out[c] = T(Quantized(in[c], inverse[c], low, high));
}

}  // namespace

OneDnnTrunk::OneDnnTrunk(const std::vector<TrunkConvWeights>& convs, Type type, const std::vector<QuantizedIo>& io)
    : type_(type) {
  assert(type == Type::kFp32 || io.size() == convs.size());
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const TrunkConvWeights& c = convs[i];
    auto layer = std::make_unique<Layer>();
    layer->out = c.out;
    layer->in = c.in;
    layer->kernel = c.kernel;
    layer->keep_board = c.keep_board;
    layer->relu = c.relu;
    layer->output_squares = c.OutputSquares();
    const int taps = c.kernel * c.kernel;
    std::vector<float> folded(c.weight.size());
    for (int o = 0; o < c.out; ++o)
      for (int j = 0; j < c.in * taps; ++j) folded[o * c.in * taps + j] = c.weight[o * c.in * taps + j] * c.scale[o];
    if (type == Type::kFp32) {
      layer->weight = std::move(folded);
      layer->bias = c.bias;
      layers_.push_back(std::move(layer));
      continue;
    }
    const QuantizedIo& q = io[i];
    assert(int(q.input_step.size()) == c.in);
    assert(q.output_step.empty() || int(q.output_step.size()) == c.out);
    layer->signed_input = q.signed_input;
    layer->quantized_input = q.quantized_input;
    layer->quantized_output = !q.output_step.empty();
    assert(c.relu || !layer->quantized_output);  // an 8-bit output is unsigned
    if (!q.quantized_input)
      // lcm(in, 64) values: the channels' repeated, a whole number of squares.
      for (int j = 0; j < std::lcm(c.in, 64); ++j) layer->inverse_step.push_back(1.0f / q.input_step[j % c.in]);
    // The weights that multiply the quantized inputs, quantized per output
    // channel to the levels the kernels allow (Int8Levels), in whole grains.
    const float max_weight = Levels().MaxWeight(q.signed_input);
    const int grain = Levels().WeightGrain(q.signed_input);
    layer->quantized.resize(folded.size());
    for (int o = 0; o < c.out; ++o) {
      float largest = 0;
      for (int k = 0; k < c.in; ++k)
        for (int t = 0; t < taps; ++t) {
          float& w = folded[(o * c.in + k) * taps + t];
          w *= q.input_step[k];
          largest = std::max(largest, std::fabs(w));
        }
      const float weight_scale = largest > 0 ? largest / max_weight : 1.0f;
      for (int j = 0; j < c.in * taps; ++j)
        layer->quantized[o * c.in * taps + j] =
            int8_t(grain * std::lround(folded[o * c.in * taps + j] / (grain * weight_scale)));
      layer->output_scale.push_back(weight_scale / (layer->quantized_output ? q.output_step[o] : 1.0f));
      layer->bias.push_back(c.bias[o] / weight_scale);
    }
    layers_.push_back(std::move(layer));
  }
}

OneDnnTrunk::~OneDnnTrunk() = default;

const OneDnnTrunk::Primitive& OneDnnTrunk::PrimitiveFor(int index, int n, bool sum) const {
  const Layer& layer = *layers_[index];
  std::atomic<const Primitive*>* published = n <= kFastBatch ? &layer.fast[std::size_t(n) * 2 + sum] : nullptr;
  if (published)
    if (const Primitive* made = published->load(std::memory_order_acquire)) return *made;
  std::lock_guard<std::mutex> lock(layer.mutex);
  std::unique_ptr<Primitive>& slot = layer.by_batch[{n, sum}];
  if (slot) return *slot;
  const bool int8 = type_ == Type::kInt8;
  const dt src_type = !int8 ? dt::f32 : layer.signed_input ? dt::s8 : dt::u8;
  const int k = layer.kernel, pad = layer.keep_board ? k / 2 : 0, side = 8 + 2 * pad - k + 1;
  auto p = std::make_unique<Primitive>();
  p->id = next_primitive_id++;
  p->src = dnnl::memory::desc({n, layer.in, 8, 8}, src_type, tag::nhwc);
  p->dst = dnnl::memory::desc({n, layer.out, side, side}, layer.quantized_output ? dt::u8 : dt::f32, tag::nhwc);
  const dnnl::memory::desc weights({layer.out, layer.in, k, k}, int8 ? dt::s8 : dt::f32, tag::any);
  const dnnl::memory::desc bias({layer.out}, dt::f32, tag::x);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, p->src,
                                       weights, bias, p->dst, {1, 1}, {pad, pad}, {pad, pad});
  // The residual (in the output's units: an 8-bit one at the same steps)
  // is summed into the output before the ReLU; an 8-bit output's ReLU is a
  // clip to the top level.
  dnnl::post_ops ops;
  if (sum) ops.append_sum(1.0f);
  if (layer.quantized_output)
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, MaxUnsigned());
  else if (layer.relu)
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  // A kernel's scratch memory is its caller's (Run): oneDNN's own is shared
  // among primitives, each to be run only by the thread that made it, and
  // ours run on any thread.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (int8) attr.set_output_scales(1 << 1, layer.output_scale);  // per output channel
  const dnnl::convolution_forward::primitive_desc pd = Preferred({desc, attr, Engine()}, layer.keep_board);
  p->conv = dnnl::convolution_forward(pd);
  p->implementation = pd.impl_info_str();
  p->scratchpad = pd.scratchpad_desc();
  // The weights in the layout the kernel chose, once per batch size.
  const dnnl::memory::desc plain({layer.out, layer.in, k, k}, int8 ? dt::s8 : dt::f32, tag::oihw);
  dnnl::memory user(plain, Engine(),
                    int8 ? static_cast<void*>(const_cast<int8_t*>(layer.quantized.data()))
                         : static_cast<void*>(const_cast<float*>(layer.weight.data())));
  p->weights = dnnl::memory(pd.weights_desc(), Engine());
  dnnl::stream stream(Engine());
  dnnl::reorder(user, p->weights).execute(stream, user, p->weights);
  p->bias = dnnl::memory(bias, Engine());
  std::copy(layer.bias.begin(), layer.bias.end(), static_cast<float*>(p->bias.get_data_handle()));
  stream.wait();
  slot = std::move(p);
  if (published) published->store(slot.get(), std::memory_order_release);
  return *slot;
}

std::string OneDnnTrunk::Implementation(int layer, int n) const { return PrimitiveFor(layer, n, false).implementation; }

std::size_t OneDnnTrunk::ScratchBytes(int n) const {
  int widest = 0;
  for (const auto& layer : layers_)
    if (type_ == Type::kInt8 && !layer->quantized_input) widest = std::max(widest, layer->in);
  return std::size_t(n) * 64 * widest;
}

void OneDnnTrunk::Run(int index, int n, const void* in, const void* residual, void* out, void* scratch,
                      OneDnnBindings& bindings) const {
  const Layer& layer = *layers_[index];
  const Primitive& p = PrimitiveFor(index, n, residual != nullptr);
  // The sum post-op adds what out holds: the residual.
  if (residual != nullptr && residual != out)
    std::copy_n(static_cast<const uint8_t*>(residual), layer.OutputBytes(n), static_cast<uint8_t*>(out));
  const void* source = in;
  if (type_ == Type::kInt8 && !layer.quantized_input) {
    // Quantize each channel with its step, rounding to nearest, clamped to
    // its levels (a value beyond the calibrated range saturates).
    const float* inverse = layer.inverse_step.data();
    const int period = int(layer.inverse_step.size());
    const float low = layer.signed_input ? -kMaxSigned : 0.0f;
    const float high = layer.signed_input ? kMaxSigned : MaxUnsigned();
    const std::size_t count = std::size_t(n) * 64 * layer.in;
    const float* floats = static_cast<const float*>(in);
    if (layer.signed_input)
      Quantize(floats, count, inverse, period, low, high, static_cast<int8_t*>(scratch));
    else
      Quantize(floats, count, inverse, period, low, high, static_cast<uint8_t*>(scratch));
    source = scratch;
  }
  std::unordered_map<uint64_t, BoundArguments>& bound = bindings.impl_->bound;
  auto it = bound.find(p.id);
  if (it == bound.end()) {
    BoundArguments b;
    b.src = dnnl::memory(p.src, Engine(), DNNL_MEMORY_NONE);
    b.dst = dnnl::memory(p.dst, Engine(), DNNL_MEMORY_NONE);
    b.scratchpad = dnnl::memory(p.scratchpad, Engine(), DNNL_MEMORY_NONE);
    b.args = {{DNNL_ARG_SRC, b.src},
              {DNNL_ARG_WEIGHTS, p.weights},
              {DNNL_ARG_BIAS, p.bias},
              {DNNL_ARG_DST, b.dst},
              {DNNL_ARG_SCRATCHPAD, b.scratchpad}};
    it = bound.emplace(p.id, std::move(b)).first;
    ++live_entries;
  }
  it->second.src.set_data_handle(const_cast<void*>(source));
  it->second.dst.set_data_handle(out);
  std::vector<uint8_t>& kernel_scratch = bindings.impl_->kernel_scratch;
  if (kernel_scratch.size() < p.scratchpad.get_size()) kernel_scratch.resize(p.scratchpad.get_size());
  it->second.scratchpad.set_data_handle(kernel_scratch.data());
  p.conv.execute(bindings.impl_->stream, it->second.args);
  bindings.impl_->stream.wait();
}

}  // namespace loa
