#include "net/direct_conv.h"

#include <cassert>
#include <cstring>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace loa {
namespace {

// Output channels per kernel call: 4 x 4 accumulators (AVX-512 has 32
// registers; 16 left for the loads). Measured against 2 and 6 with
// `loaz bench net --cpu-time`.
constexpr int kBlock = 4;
// Vectors of 16 floats per plane of 64 squares.
constexpr int kVectors = 4;

#ifdef __AVX512F__

// Lanes a tap of column step kx - 1 may read: not the file it would wrap
// from (file a for a step left, file h for a step right).
constexpr __mmask16 kColumnMask[3] = {0xFEFE, 0xFFFF, 0x7F7F};

// The taps of a kernel x kernel convolution: their offsets from the output
// square and their masks, in the packed weights' order.
template <int kKernel>
struct Taps {
  int offset[kKernel * kKernel];
  __mmask16 mask[kKernel * kKernel];
  constexpr Taps() : offset(), mask() {
    for (int ky = 0; ky < kKernel; ++ky)
      for (int kx = 0; kx < kKernel; ++kx) {
        offset[ky * kKernel + kx] = (ky - kKernel / 2) * 8 + (kx - kKernel / 2);
        mask[ky * kKernel + kx] = kKernel == 1 ? 0xFFFF : kColumnMask[kx];
      }
  }
};

// The 16 accumulators are named variables, not an array: GCC 12 keeps an
// array of them in memory and stores it back on every iteration.
#define LOAZ_FOR_EACH_ACCUMULATOR(X) \
  X(0, 0)                            \
  X(0, 1)                            \
  X(0, 2) X(0, 3) X(1, 0) X(1, 1) X(1, 2) X(1, 3) X(2, 0) X(2, 1) X(2, 2) X(2, 3) X(3, 0) X(3, 1) X(3, 2) X(3, 3)
static_assert(kBlock == 4 && kVectors == 4, "LOAZ_FOR_EACH_ACCUMULATOR lists 4 x 4");

template <int kKernel>
void Kernel(const float* w, const float* bias, const float* in, int in_channels, const float* residual, bool relu,
            float* out) {
  static constexpr Taps<kKernel> kTaps;
#define LOAZ_INIT(o, q) __m512 acc##o##q = _mm512_set1_ps(bias[o]);
  LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_INIT)
#undef LOAZ_INIT
  for (int c = 0; c < in_channels; ++c) {
    const float* plane = in + c * kPaddedPlane + kPaddedOrigin;
    // Not unrolled: unrolled, GCC 12 shuffles the accumulators between
    // registers and runs slower.
#pragma GCC unroll 1
    for (int t = 0; t < kKernel * kKernel; ++t, w += kBlock) {
      const float* source = plane + kTaps.offset[t];
      const __mmask16 mask = kTaps.mask[t];
      const __m512 x0 = _mm512_maskz_loadu_ps(mask, source), x1 = _mm512_maskz_loadu_ps(mask, source + 16),
                   x2 = _mm512_maskz_loadu_ps(mask, source + 32), x3 = _mm512_maskz_loadu_ps(mask, source + 48);
      const __m512 w0 = _mm512_set1_ps(w[0]), w1 = _mm512_set1_ps(w[1]), w2 = _mm512_set1_ps(w[2]),
                   w3 = _mm512_set1_ps(w[3]);
#define LOAZ_FMA(o, q) acc##o##q = _mm512_fmadd_ps(x##q, w##o, acc##o##q);
      LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_FMA)
#undef LOAZ_FMA
    }
  }
  const __m512 zero = _mm512_setzero_ps();
#define LOAZ_STORE(o, q)                                                                            \
  {                                                                                                 \
    float* target = out + o * kPaddedPlane + kPaddedOrigin + 16 * q;                                \
    if (residual) acc##o##q = _mm512_add_ps(acc##o##q, _mm512_loadu_ps(residual + (target - out))); \
    if (relu) acc##o##q = _mm512_max_ps(acc##o##q, zero);                                           \
    _mm512_storeu_ps(target, acc##o##q);                                                            \
  }
  LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_STORE)
#undef LOAZ_STORE
}

#undef LOAZ_FOR_EACH_ACCUMULATOR

#endif  // __AVX512F__

// The same computation in plain C++, for targets without AVX-512 (and for
// the tests that hold the two against each other).
template <int kKernel>
void PortableKernel(const float* w, const float* bias, const float* in, int in_channels, const float* residual,
                    bool relu, float* out) {
  float acc[kBlock][kNumSquares];
  for (int o = 0; o < kBlock; ++o)
    for (int s = 0; s < kNumSquares; ++s) acc[o][s] = bias[o];
  for (int c = 0; c < in_channels; ++c) {
    const float* plane = in + c * kPaddedPlane + kPaddedOrigin;
    for (int ky = 0; ky < kKernel; ++ky) {
      for (int kx = 0; kx < kKernel; ++kx, w += kBlock) {
        const int dx = kx - kKernel / 2;
        const float* source = plane + (ky - kKernel / 2) * 8 + dx;
        float x[kNumSquares];
        for (int s = 0; s < kNumSquares; ++s) {
          const int file = s & 7;
          x[s] = (file + dx < 0 || file + dx > 7) ? 0.0f : source[s];
        }
        for (int o = 0; o < kBlock; ++o)
          for (int s = 0; s < kNumSquares; ++s) acc[o][s] += x[s] * w[o];
      }
    }
  }
  for (int o = 0; o < kBlock; ++o) {
    float* plane = out + o * kPaddedPlane + kPaddedOrigin;
    const float* add = residual ? residual + o * kPaddedPlane + kPaddedOrigin : nullptr;
    for (int s = 0; s < kNumSquares; ++s) {
      float v = acc[o][s] + (add ? add[s] : 0.0f);
      plane[s] = relu && v < 0 ? 0.0f : v;
    }
  }
}

}  // namespace

DirectConv::DirectConv(const float* weight, int out, int in, int kernel, const float* scale, const float* bias)
    : out_(out), in_(in), rounded_out_((out + kBlock - 1) / kBlock * kBlock), kernel_(kernel) {
  assert(kernel == 1 || kernel == 3);
  const int taps = kernel * kernel;
  packed_.assign(std::size_t(rounded_out_) * in_ * taps, 0.0f);
  bias_.assign(rounded_out_, 0.0f);
  for (int o = 0; o < out_; ++o) {
    const float s = scale ? scale[o] : 1.0f;
    bias_[o] = bias ? bias[o] : 0.0f;
    const int block = o / kBlock, lane = o % kBlock;
    for (int c = 0; c < in_; ++c)
      for (int t = 0; t < taps; ++t)
        packed_[((std::size_t(block) * in_ + c) * taps + t) * kBlock + lane] =
            weight[(std::size_t(o) * in_ + c) * taps + t] * s;
  }
}

void DirectConv::Run(const float* in, const float* residual, bool relu, float* out) const {
#ifdef __AVX512F__
  RunWith(kernel_ == 3 ? Kernel<3> : Kernel<1>, in, residual, relu, out);
#else
  RunPortable(in, residual, relu, out);
#endif
}

void DirectConv::RunPortable(const float* in, const float* residual, bool relu, float* out) const {
  RunWith(kernel_ == 3 ? PortableKernel<3> : PortableKernel<1>, in, residual, relu, out);
}

void DirectConv::RunWith(KernelFunction kernel, const float* in, const float* residual, bool relu, float* out) const {
  const std::size_t block_weights = std::size_t(in_) * kernel_ * kernel_ * kBlock;
  for (int block = 0; block < rounded_out_ / kBlock; ++block) {
    const std::size_t first = std::size_t(block) * kBlock * kPaddedPlane;
    kernel(packed_.data() + block * block_weights, bias_.data() + block * kBlock, in, in_,
           residual ? residual + first : nullptr, relu, out + first);
  }
}

void PadPlanes(const float* planes, int count, float* padded) {
  std::memset(padded, 0, sizeof(float) * count * kPaddedPlane);
  for (int p = 0; p < count; ++p)
    std::memcpy(padded + p * kPaddedPlane + kPaddedOrigin, planes + p * kNumSquares, kNumSquares * sizeof(float));
}

}  // namespace loa
