#pragma once
// The Eigen evaluator's convolution kernel: direct convolution on planes
// with a zero row above and below the board, so that every tap of a 3x3
// convolution reads one contiguous run of 64 floats, 4 vectors of 16 (the
// squares of the left or right edge masked off for the taps that would wrap
// around a row). Nothing is copied (no im2col) and no lane is wasted. 4
// output channels at a time keep 16 accumulators in AVX-512 registers, and
// each weight is broadcast from memory into its FMAs. No LibTorch, no Eigen.

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

  // The same with the portable C++ kernel (what targets without AVX-512
  // run); for tests.
  void RunPortable(const float* in, const float* residual, bool relu, float* out) const;

  int out() const { return out_; }
  int in() const { return in_; }
  // out() rounded up to the channels the kernel computes at once.
  int rounded_out() const { return rounded_out_; }

 private:
  using KernelFunction = void (*)(const float* w, const float* bias, const float* in, int in_channels,
                                  const float* residual, bool relu, float* out);
  void RunWith(KernelFunction kernel, const float* in, const float* residual, bool relu, float* out) const;

  int out_ = 0, in_ = 0, rounded_out_ = 0, kernel_ = 0;
  std::vector<float> packed_;  // [out block][in][tap][channel in block]
  std::vector<float> bias_;    // rounded_out_
};

// Writes the NCHW planes of one position (count x 64 floats) into padded
// planes (count x kPaddedPlane floats), padding zero.
void PadPlanes(const float* planes, int count, float* padded);

}  // namespace loa
