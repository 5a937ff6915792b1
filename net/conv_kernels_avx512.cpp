// The AVX-512 float kernel (net/conv_kernels.h): compiled with -mavx512f,
// run only where Cpu().avx512f. Every tap of a 3x3 convolution reads one
// contiguous run of 64 floats, 4 vectors of 16, the squares of the left or
// right edge masked off for the taps that would wrap around a row. 4 output
// channels at a time keep 16 accumulators in registers (AVX-512 has 32; 16
// left for the loads), and each weight is broadcast from memory into its
// FMAs. 4 measured against 2 and 6 with `loaz bench net --cpu-time`.

#include <immintrin.h>

#include "net/conv_kernels.h"

namespace loa::kernels {
namespace {

static_assert(kConvBlock == 4, "the accumulators below are 4 x 4");

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

template <int kKernel>
void Kernel(const float* w, const float* bias, const float* in, int in_channels, const float* residual, bool relu,
            float* out) {
  static constexpr Taps<kKernel> kTaps;
#define LOAZ_INIT(o, q) __m512 acc##o##q = _mm512_set1_ps(bias[o]);
  LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_INIT)
#undef LOAZ_INIT
  for (int c = 0; c < in_channels; ++c) {
    const float* plane = in + c * kPlane + kOrigin;
    // Not unrolled: unrolled, GCC 12 shuffles the accumulators between
    // registers and runs slower.
#pragma GCC unroll 1
    for (int t = 0; t < kKernel * kKernel; ++t, w += kConvBlock) {
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
    float* target = out + o * kPlane + kOrigin + 16 * q;                                            \
    if (residual) acc##o##q = _mm512_add_ps(acc##o##q, _mm512_loadu_ps(residual + (target - out))); \
    if (relu) acc##o##q = _mm512_max_ps(acc##o##q, zero);                                           \
    _mm512_storeu_ps(target, acc##o##q);                                                            \
  }
  LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_STORE)
#undef LOAZ_STORE
}

#undef LOAZ_FOR_EACH_ACCUMULATOR

}  // namespace

void Fp32Avx512_3x3(const float* w, const float* bias, const float* in, int in_channels, const float* residual,
                    bool relu, float* out) {
  Kernel<3>(w, bias, in, in_channels, residual, relu, out);
}

void Fp32Avx512_1x1(const float* w, const float* bias, const float* in, int in_channels, const float* residual,
                    bool relu, float* out) {
  Kernel<1>(w, bias, in, in_channels, residual, relu, out);
}

}  // namespace loa::kernels
