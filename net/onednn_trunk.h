#pragma once
// The layers of the net on oneDNN's JIT convolutions: the stem, the
// residual blocks, the heads' 1x1 convolutions and the layers after them
// (the policy's output; a dense head's first linear layer, as a
// convolution of kernel 8): 99% of the multiply-adds of the shipped 4x32
// net, in float32 or int8, over a batch of positions at once. oneDNN picks
// its kernels from the processor at run time (AVX2, AVX-512, VNNI, AMX:
// what the machine has); docs/INFERENCE.md has the measurements that chose
// it over the project's own kernels.
//
// Activations are NHWC ([position][square][channel], square a1 = 0). In
// float32 every activation is a float. In int8 a layer's weights are
// quantized per output channel with the step of each input channel folded
// in, the sums are int32, and each side of a layer is either float or 8
// bits (QuantizedIo): an input of floats is quantized per channel as the
// layer runs; an 8-bit input is read as it lies, at the steps the layer
// that wrote it was given; an output is float, or unsigned 8 bits at the
// steps of the layers that read it (the ReLU clipped to the top level), so
// that activations pass from layer to layer in 8 bits.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loa {

// One convolution of an 8x8 board with its batch norm folded in: weight is
// [out][in][k][k] times scale[o], plus bias[o], then a ReLU unless not.
// Stride 1; the board kept by zero padding (3x3, 1x1), or, not kept, no
// padding: a kernel of 8 is then a linear layer of the position's NHWC
// values (out 1x1 "squares"), its weight PyTorch's [out][channel * 64 +
// square] as it lies.
struct TrunkConvWeights {
  std::vector<float> weight, scale, bias;
  int out = 0, in = 0;
  int kernel = 3;
  bool keep_board = true;
  bool relu = true;
  int OutputSquares() const { return keep_board ? 64 : (9 - kernel) * (9 - kernel); }
};

// The float range of each input channel of a convolution.
struct ChannelRanges {
  std::vector<float> min, max;
};

// The levels of 8-bit values on the kernels oneDNN runs here
// (docs/INFERENCE.md, How many bits), chosen so that no sum of byte
// products can saturate on any instruction set. With VNNI or AMX
// (WideByteSums) the products are summed in 32 bits: activations take all
// 8 bits (u8 0..255, s8 -127..127) and weights -127..127, but a signed
// input's weights -63..63 (8 bits there made the tests' nets no closer to
// fp32; docs/INFERENCE.md). Without (SSE4.1,
// AVX2, AVX-512F) vpmaddubsw adds pairs of u8 x s8 products into
// saturating 16-bit lanes: u8 activations keep 0..127 and weights 8 bits
// (2 x 127 x 127 < 32768); a signed input is shifted up by 128 inside
// oneDNN (1..255), which then halves its weights itself (a weight of 1
// would read 0), so those weights are given as even numbers to +-126 and
// halve exactly to 7 bits (2 x 255 x 63 < 32768).
inline constexpr float kMaxSigned = 127.0f;
struct Int8Levels {
  bool wide = false;             // byte products summed in 32 bits (VNNI, AMX)
  float max_unsigned = 255;      // an unsigned activation: 0..max_unsigned
  float max_weight = 127;        // a weight of a layer whose input is unsigned: +-max_weight
  float max_signed_weight = 63;  // ... whose input is signed: +-this, a multiple of signed_weight_grain
  int signed_weight_grain = 1;

  // The weights' levels of a layer and the step between two of them, in
  // levels (the grain): its precision is max / grain levels a side.
  float MaxWeight(bool signed_input) const { return signed_input ? max_signed_weight : max_weight; }
  int WeightGrain(bool signed_input) const { return signed_input ? signed_weight_grain : 1; }
  // "activations u8 0..127, weights +-127, after a signed input +-63 (x2);
  // 16-bit pair sums, saturation-free" and the like.
  std::string Describe() const;
};
bool WideByteSums();
// The levels for the kernels oneDNN runs in this process (its instruction
// set, as ONEDNN_MAX_CPU_ISA may cap it), fixed at the first call.
const Int8Levels& Levels();
float MaxUnsigned();

// Returns x / step (x times its inverse) rounded to nearest and clamped to
// [low, high]: one value's quantization.
inline float Quantized(float x, float inverse_step, float low, float high) {
  return std::nearbyint(std::min(std::max(x * inverse_step, low), high));
}

// Returns each channel's quantization step: its largest magnitude over its
// levels (kMaxSigned if the range goes below zero, else MaxUnsigned()), 1
// for a channel that never moved.
std::vector<float> QuantizationSteps(const ChannelRanges& range);

// Returns the channel-wise union of ranges (each of the same channels).
ChannelRanges UnionOfRanges(const std::vector<const ChannelRanges*>& ranges);

// How an int8 convolution reads and writes (float32 ignores it).
struct QuantizedIo {
  std::vector<float> input_step;   // the float value of one step of each input channel
  bool signed_input = false;       // the input can be negative: s8, else u8
  bool quantized_input = false;    // the input arrives in 8 bits; else floats that Run quantizes
  std::vector<float> output_step;  // empty: a float output; else u8 at this step a channel

  // An input of floats quantized with the steps of their range, signed if
  // it goes below zero.
  static QuantizedIo FloatInput(const ChannelRanges& range);
};

// Returns oneDNN's version and the instruction set its kernels use here,
// e.g. "2.6.3 (avx2)".
std::string OneDnnVersion();
// Returns the instruction set oneDNN's kernels use here: "sse4.1", "avx",
// "avx2", "avx2+vnni", "avx512", "avx512+vnni", "avx512+bf16", "amx".
std::string OneDnnIsa();
// Whether oneDNN runs int8 convolutions here on AVX2 or wider (the
// evaluator's int8 needs it: SSE4.1 kernels are no faster than fp32).
bool OneDnnHasFastInt8();

// What one caller's runs of a trunk keep between calls: a oneDNN stream,
// the arguments bound to each convolution it ran (they hold the layers'
// weights) and its kernels' scratch. Owned by the caller (a net's
// workspace: net/cpu_net.cpp), so that it dies with it and with the net;
// one thread at a time.
class OneDnnBindings {
 public:
  OneDnnBindings();
  ~OneDnnBindings();
  OneDnnBindings(OneDnnBindings&&) noexcept;
  OneDnnBindings& operator=(OneDnnBindings&&) noexcept;

  // The bound entries alive in the process: what a test of loading and
  // dropping nets counts.
  static int64_t LiveEntries();

 private:
  friend class OneDnnTrunk;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class OneDnnTrunk {
 public:
  enum class Type { kFp32, kInt8 };

  // The convolutions, numbered as given; io (int8 only) how each reads and
  // writes.
  OneDnnTrunk(const std::vector<TrunkConvWeights>& convs, Type type, const std::vector<QuantizedIo>& io = {});
  ~OneDnnTrunk();

  // Runs convolution `layer` on n positions: out = relu(conv(in) +
  // residual) (or without the ReLU), residual (may be out itself, or null)
  // of out's type and, in 8 bits, steps. in has convs[layer].in channels, out convs[layer].out;
  // each float or 8 bits as the layer's QuantizedIo says. scratch: at
  // least ScratchBytes(n) bytes, for a quantized input. bindings: the
  // caller's (one thread at a time), which keep what the run bound. Thread-safe
  // for callers with bindings of their own.
  void Run(int layer, int n, const void* in, const void* residual, void* out, void* scratch,
           OneDnnBindings& bindings) const;

  std::size_t ScratchBytes(int n) const;
  // Returns oneDNN's name of the kernel that runs layer `layer` on n
  // positions, e.g. "jit_int8:avx512_core_vnni".
  std::string Implementation(int layer, int n) const;
  Type type() const { return type_; }
  int layers() const { return int(layers_.size()); }

 private:
  struct Layer;
  struct Primitive;
  // The layer's convolution for a batch of n, with the sum post-op (a
  // residual) or without it.
  const Primitive& PrimitiveFor(int layer, int n, bool sum) const;

  Type type_;
  std::vector<std::unique_ptr<Layer>> layers_;
};

}  // namespace loa
