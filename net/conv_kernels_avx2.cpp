// The AVX2 kernels (net/conv_kernels.h): compiled with -mavx2 -mfma, run
// only where Cpu().avx2_fma. A vector of 8 lanes is one rank of the board, so
// a tap of a 3x3 convolution is one unaligned load per rank, with the lane
// that would wrap around from the next rank replaced by the padding value
// (file a for a step left, file h for a step right). A call computes 4 output
// channels over two ranks at a time: 8 accumulators, enough independent sums
// to cover the latency of the multiply units, and 16 registers in all.

#include <immintrin.h>

#include "net/conv_kernels.h"

namespace loa::kernels {
namespace {

static_assert(kConvBlock == 4, "the accumulators below are 4 output channels x 2 ranks");

// Accumulator acc<o><r>: output channel o of the block, rank r of the pair.
#define LOAZ_FOR_EACH_ACCUMULATOR(X) X(0, 0) X(0, 1) X(1, 0) X(1, 1) X(2, 0) X(2, 1) X(3, 0) X(3, 1)

// --- float32 -----------------------------------------------------------------

// One tap (column step DX) at SOURCE, weights WP[0..3]: 8 FMAs.
#define LOAZ_FP32_TAP(DX, SOURCE, WP)                                                       \
  {                                                                                         \
    __m256 x0 = _mm256_loadu_ps(SOURCE), x1 = _mm256_loadu_ps((SOURCE) + 8);                \
    if (DX < 0) x0 = _mm256_blend_ps(x0, zero, 0x01), x1 = _mm256_blend_ps(x1, zero, 0x01); \
    if (DX > 0) x0 = _mm256_blend_ps(x0, zero, 0x80), x1 = _mm256_blend_ps(x1, zero, 0x80); \
    const __m256 w0 = _mm256_broadcast_ss(WP), w1 = _mm256_broadcast_ss((WP) + 1);          \
    acc00 = _mm256_fmadd_ps(x0, w0, acc00), acc01 = _mm256_fmadd_ps(x1, w0, acc01);         \
    acc10 = _mm256_fmadd_ps(x0, w1, acc10), acc11 = _mm256_fmadd_ps(x1, w1, acc11);         \
    const __m256 w2 = _mm256_broadcast_ss((WP) + 2), w3 = _mm256_broadcast_ss((WP) + 3);    \
    acc20 = _mm256_fmadd_ps(x0, w2, acc20), acc21 = _mm256_fmadd_ps(x1, w2, acc21);         \
    acc30 = _mm256_fmadd_ps(x0, w3, acc30), acc31 = _mm256_fmadd_ps(x1, w3, acc31);         \
  }

template <int kKernel>
void Fp32(const float* w, const float* bias, const float* in, int in_channels, const float* residual, bool relu,
          float* out) {
  const __m256 zero = _mm256_setzero_ps();
  for (int pair = 0; pair < 4; ++pair) {
    const int first = kOrigin + 16 * pair;  // the pair's first square in a padded plane
#define LOAZ_INIT(o, r) __m256 acc##o##r = _mm256_set1_ps(bias[o]);
    LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_INIT)
#undef LOAZ_INIT
    const float* wp = w;
    for (int c = 0; c < in_channels; ++c) {
      const float* plane = in + c * kPlane + first;
      if (kKernel == 1) {
        LOAZ_FP32_TAP(0, plane, wp)
        wp += kConvBlock;
        continue;
      }
#pragma GCC unroll 1
      for (int dy = -8; dy <= 8; dy += 8, wp += 3 * kConvBlock) {
        LOAZ_FP32_TAP(-1, plane + dy - 1, wp)
        LOAZ_FP32_TAP(0, plane + dy, wp + kConvBlock)
        LOAZ_FP32_TAP(1, plane + dy + 1, wp + 2 * kConvBlock)
      }
    }
#define LOAZ_STORE(o, r)                                                                    \
  {                                                                                         \
    const int offset = o * kPlane + first + 8 * r;                                          \
    if (residual) acc##o##r = _mm256_add_ps(acc##o##r, _mm256_loadu_ps(residual + offset)); \
    if (relu) acc##o##r = _mm256_max_ps(acc##o##r, zero);                                   \
    _mm256_storeu_ps(out + offset, acc##o##r);                                              \
  }
    LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_STORE)
#undef LOAZ_STORE
  }
}

#undef LOAZ_FP32_TAP

// --- int8 ----------------------------------------------------------------------

// One tap (column step DX) at SOURCE (in 4-byte groups), weights WP[0..3]:
// per accumulator, vpmaddubsw multiplies 32 unsigned activations by 32
// signed weights and adds neighbouring pairs into 16 int16 (activations are
// at most 127, so a pair is at most 2 * 127 * 128: no saturation), and
// vpmaddwd by ones adds those pairs into the 8 int32 sums of 4 channels.
#define LOAZ_INT8_DOT(X, W, ACC) ACC = _mm256_add_epi32(ACC, _mm256_madd_epi16(_mm256_maddubs_epi16(X, W), ones))
#define LOAZ_INT8_TAP(DX, SOURCE, WP)                                                                   \
  {                                                                                                     \
    __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(SOURCE));                          \
    __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>((SOURCE) + 8));                    \
    if (DX < 0) x0 = _mm256_blend_epi32(x0, padding, 0x01), x1 = _mm256_blend_epi32(x1, padding, 0x01); \
    if (DX > 0) x0 = _mm256_blend_epi32(x0, padding, 0x80), x1 = _mm256_blend_epi32(x1, padding, 0x80); \
    const __m256i w0 = _mm256_set1_epi32((WP)[0]), w1 = _mm256_set1_epi32((WP)[1]);                     \
    LOAZ_INT8_DOT(x0, w0, acc00);                                                                       \
    LOAZ_INT8_DOT(x1, w0, acc01);                                                                       \
    LOAZ_INT8_DOT(x0, w1, acc10);                                                                       \
    LOAZ_INT8_DOT(x1, w1, acc11);                                                                       \
    const __m256i w2 = _mm256_set1_epi32((WP)[2]), w3 = _mm256_set1_epi32((WP)[3]);                     \
    LOAZ_INT8_DOT(x0, w2, acc20);                                                                       \
    LOAZ_INT8_DOT(x1, w2, acc21);                                                                       \
    LOAZ_INT8_DOT(x0, w3, acc30);                                                                       \
    LOAZ_INT8_DOT(x1, w3, acc31);                                                                       \
  }

}  // namespace

void Fp32Avx2_3x3(const float* w, const float* bias, const float* in, int in_channels, const float* residual, bool relu,
                  float* out) {
  Fp32<3>(w, bias, in, in_channels, residual, relu, out);
}

void Fp32Avx2_1x1(const float* w, const float* bias, const float* in, int in_channels, const float* residual, bool relu,
                  float* out) {
  Fp32<1>(w, bias, in, in_channels, residual, relu, out);
}

void Int8Avx2_3x3(const int32_t* w, const float* mul, const float* add, const uint8_t* in, int groups,
                  const uint32_t* group_padding, const float* residual, bool relu, float* out) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256 zero = _mm256_setzero_ps();
  const int32_t* groups_in = reinterpret_cast<const int32_t*>(in);
  for (int pair = 0; pair < 4; ++pair) {
    const int first = kOrigin + 16 * pair;
#define LOAZ_INIT(o, r) __m256i acc##o##r = _mm256_setzero_si256();
    LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_INIT)
#undef LOAZ_INIT
    const int32_t* wp = w;
    for (int g = 0; g < groups; ++g) {
      const int32_t* plane = groups_in + g * kPlane + first;
      const __m256i padding = _mm256_set1_epi32(int(group_padding[g]));
#pragma GCC unroll 1
      for (int dy = -8; dy <= 8; dy += 8, wp += 3 * kConvBlock) {
        LOAZ_INT8_TAP(-1, plane + dy - 1, wp)
        LOAZ_INT8_TAP(0, plane + dy, wp + kConvBlock)
        LOAZ_INT8_TAP(1, plane + dy + 1, wp + 2 * kConvBlock)
      }
    }
#define LOAZ_STORE(o, r)                                                                                       \
  {                                                                                                            \
    const int offset = o * kPlane + first + 8 * r;                                                             \
    __m256 y = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc##o##r), _mm256_set1_ps(mul[o]), _mm256_set1_ps(add[o])); \
    if (residual) y = _mm256_add_ps(y, _mm256_loadu_ps(residual + offset));                                    \
    if (relu) y = _mm256_max_ps(y, zero);                                                                      \
    _mm256_storeu_ps(out + offset, y);                                                                         \
  }
    LOAZ_FOR_EACH_ACCUMULATOR(LOAZ_STORE)
#undef LOAZ_STORE
  }
}

#undef LOAZ_INT8_TAP
#undef LOAZ_INT8_DOT
#undef LOAZ_FOR_EACH_ACCUMULATOR

}  // namespace loa::kernels
