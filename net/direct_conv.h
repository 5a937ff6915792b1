#pragma once
// The Eigen evaluator's convolutions: direct convolution on planes with a
// zero row above and below the board, so that every tap of a 3x3
// convolution reads one contiguous run of the 64 squares (the squares of the
// left or right edge masked off for the taps that would wrap around a row).
// Nothing is copied (no im2col) and no lane is wasted. In float32
// (DirectConv) and in int8 (Int8Conv: 8-bit weights and activations, 32-bit
// sums). The kernels (net/conv_kernels.h) are chosen at run time from what
// the processor has: AVX-512, AVX2 with FMA, or portable C++. No LibTorch,
// no Eigen.

#include <cstdint>
#include <vector>

#include "core/types.h"

namespace loa {

// A plane: 8 guard floats, a zero row, the 64 squares (a1 first), a zero
// row, 8 guard floats: kPaddedPlane floats, 64-byte aligned when the buffer
// is. Square s is at kPaddedOrigin + s; every read of a tap stays inside.
inline constexpr int kPaddedPlane = 96;
inline constexpr int kPaddedOrigin = 16;

// Returns the offset of square s in a padded plane.
constexpr int PaddedIndex(Square s) { return kPaddedOrigin + s; }

// A 3x3 or 1x1 convolution with its batch norm (or bias) folded in, its
// weights packed for the kernel. Immutable after construction.
class DirectConv {
 public:
  // weight is PyTorch's [out][in][kernel][kernel], row-major; output channel
  // o is scaled by scale[o] (null: 1) and shifted by bias[o] (null: 0).
  DirectConv(const float* weight, int out, int in, int kernel, const float* scale, const float* bias);
  DirectConv() = default;

  // Writes the 64 squares of rounded_out() padded planes of out from in()
  // padded planes of in: the convolution plus bias, plus residual's plane of
  // the same channel when residual is not null (it may be out itself), then
  // ReLU when relu. The padding of out is not written (keep it zero); planes
  // past out() come out zero. in must not overlap out. Thread-safe.
  void Run(const float* in, const float* residual, bool relu, float* out) const;

  // Which kernel Run uses: the widest the processor has, or the limit set.
  enum class Isa { kPortable, kAvx2, kAvx512 };
  static Isa BestIsa();
  // Limits the kernels of every convolution (float and int8) to isa, for
  // `loaz bench net --isa`; not for use while a net runs.
  static void LimitIsa(Isa isa);
  static const char* IsaName(Isa isa);
  // Run with a chosen kernel, which the processor must have; for tests and
  // benchmarks.
  void RunWith(Isa isa, const float* in, const float* residual, bool relu, float* out) const;

  int out() const { return out_; }
  int in() const { return in_; }
  // out() rounded up to the channels the kernel computes at once.
  int rounded_out() const { return rounded_out_; }

 private:
  int out_ = 0, in_ = 0, rounded_out_ = 0, kernel_ = 0;
  std::vector<float> packed_;  // [out block][in][tap][channel in block]
  std::vector<float> bias_;    // rounded_out_
};

// How a convolution's float input becomes 7-bit integers, channel by
// channel: q = clamp(round(x / scale[c]) + zero_point[c], 0, 127).
// Non-negative inputs (after a ReLU) have zero point 0; inputs that can be
// negative (after the global pooling bias) are shifted up by it. Each
// channel's scale is folded into the weights that read it (Int8Conv), so a
// channel of small values keeps its resolution. 7 bits, not 8: AVX2's
// vpmaddubsw adds two products of an unsigned and a signed byte into a signed
// 16-bit lane, which 2 x 127 x 128 cannot overflow.
struct ActivationQuantizer {
  std::vector<float> scale;
  std::vector<uint8_t> zero_point;

  // Returns the quantizer that maps channel c's [min(min[c], 0),
  // max(max[c], 0)] onto 0..127.
  static ActivationQuantizer ForRanges(const std::vector<float>& min, const std::vector<float>& max);
  int channels() const { return int(scale.size()); }
  // Writes channels() padded float planes as (channels() + 3) / 4 padded
  // planes of 4-byte groups (Int8Conv's input), each channel's padding at
  // its zero point, missing channels 0.
  void Quantize(const float* padded, uint8_t* out) const;
  // The 4 zero points of group g as one 32-bit word (the padding's value).
  uint32_t GroupPadding(int g) const;
  // Bytes of Quantize's output for `channels` channels.
  static std::size_t Bytes(int channels) { return std::size_t((channels + 3) / 4) * kPaddedPlane * 4; }
};

// A 3x3 convolution with its batch norm folded in, in int8: the input by a
// calibrated ActivationQuantizer, its scales folded into the weights, which
// are then quantised per output channel (scale max |w| / 127); products
// summed in int32, the result scaled back to float with the bias, residual
// and ReLU as DirectConv's. Immutable after construction.
class Int8Conv {
 public:
  // weight, out, in, scale, bias as DirectConv's (kernel 3); input has in
  // channels.
  Int8Conv(const float* weight, int out, int in, const float* scale, const float* bias,
           const ActivationQuantizer& input);
  Int8Conv() = default;

  // Quantizes in() padded float planes of in into quantized (input_bytes()
  // bytes of scratch), then runs as DirectConv::Run. Thread-safe.
  void Run(const float* in, uint8_t* quantized, const float* residual, bool relu, float* out) const;
  // Runs on an input that is already quantized, with the AVX2 kernel when
  // avx2 (the processor must have it) or the portable one. Both give the
  // same sums: integer arithmetic is exact.
  void RunQuantized(const uint8_t* in, const float* residual, bool relu, float* out, bool avx2) const;

  const ActivationQuantizer& input() const { return input_; }
  std::size_t input_bytes() const { return ActivationQuantizer::Bytes(in_); }
  int out() const { return out_; }
  int rounded_out() const { return rounded_out_; }

 private:
  int out_ = 0, in_ = 0, rounded_out_ = 0, groups_ = 0;
  ActivationQuantizer input_;
  std::vector<uint32_t> padding_;  // groups_: the padding of each group
  std::vector<int32_t> packed_;    // [out block][group][tap][channel in block]: 4 signed bytes
  std::vector<float> mul_, add_;   // rounded_out_: the int32 sum times mul_ plus add_
};

// Writes the NCHW planes of one position (count x 64 floats) into padded
// planes (count x kPaddedPlane floats), padding zero.
void PadPlanes(const float* planes, int count, float* padded);

}  // namespace loa
