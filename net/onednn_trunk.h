#pragma once
// The trunk of the net (the stem and the residual blocks: 97% of the
// multiply-adds of the shipped 4x32 net) on oneDNN's JIT convolutions, in
// float32 or int8, over a batch of positions at once. oneDNN picks its
// kernels from the processor at run time (AVX2, AVX-512, VNNI, AMX: what
// the machine has); docs/INFERENCE.md has the
// measurements that chose it over the project's own kernels.
//
// Activations are NHWC floats ([position][square][channel], square a1 = 0).
// In int8 each convolution's input is quantized per channel with a scale
// from its range on the calibration positions (net/calibration.h), folded
// into the weights, which are then quantized per output channel; the sums
// are int32, the output float. The residual sums, the global pooling and
// the heads stay float32.

#include <memory>
#include <string>
#include <vector>

namespace loa {

// One 3x3 convolution of the trunk with its batch norm folded in: weight is
// [out][in][3][3] times scale[o], plus bias[o].
struct TrunkConvWeights {
  std::vector<float> weight, scale, bias;
  int out = 0, in = 0;
};

// The float range of each input channel of a convolution.
struct ChannelRanges {
  std::vector<float> min, max;
};

// Returns oneDNN's version and the instruction set its kernels use here,
// e.g. "2.6.3 (avx2)".
std::string OneDnnVersion();

class OneDnnTrunk {
 public:
  enum class Type { kFp32, kInt8 };

  // convs[0] is the stem, then block b's two convolutions; ranges (int8
  // only) the range of each one's input channels.
  OneDnnTrunk(const std::vector<TrunkConvWeights>& convs, Type type, const std::vector<ChannelRanges>& ranges = {});
  ~OneDnnTrunk();

  // Runs convolution `layer` on n positions: out = relu(conv(in) +
  // residual), residual (may be out itself, or null) NHWC like out. in has
  // convs[layer].in channels, out convs[layer].out. scratch: at least
  // ScratchBytes(n) bytes, for the quantized input. Thread-safe.
  void Run(int layer, int n, const float* in, const float* residual, float* out, void* scratch) const;

  std::size_t ScratchBytes(int n) const;
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
