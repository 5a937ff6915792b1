#pragma once
// The inner kernels of net/direct_conv.h, one translation unit per
// instruction set (conv_kernels_avx2.cpp with -mavx2 -mfma,
// conv_kernels_avx512.cpp with -mavx512f), called only where Cpu() says the
// processor has that set. Those files include nothing but <immintrin.h> and
// this header, so no inline function of another header is compiled there
// with instructions that the rest of the program must not assume.
//
// Every kernel computes one block of kConvBlock output channels over all 64
// squares of padded planes (direct_conv.h) and writes them as floats.

#include <cstdint>

namespace loa::kernels {

// Output channels per kernel call.
inline constexpr int kConvBlock = 4;
// Floats (or 4-byte groups) per padded plane and the offset of square a1.
inline constexpr int kPlane = 96;
inline constexpr int kOrigin = 16;

// Float32: w is [in][tap][kConvBlock] (scale folded in), bias[kConvBlock];
// in is in_channels padded planes; out (and residual, when not null) the
// block's kConvBlock planes. relu after the residual.
using Fp32Kernel = void (*)(const float* w, const float* bias, const float* in, int in_channels, const float* residual,
                            bool relu, float* out);

// Int8: in is `groups` padded planes of 4-byte groups, each the quantised
// values (0..127) of 4 consecutive input channels at one square; the
// padding of group g holds padding[g] (the channels' zero points). w is [group][tap][kConvBlock] of 4 signed bytes (the
// weights of the group's 4 channels). An output is the int32 sum times
// mul[o] plus add[o], plus residual, then relu.
using Int8Kernel = void (*)(const int32_t* w, const float* mul, const float* add, const uint8_t* in, int groups,
                            const uint32_t* padding, const float* residual, bool relu, float* out);

void Fp32Avx2_3x3(const float*, const float*, const float*, int, const float*, bool, float*);
void Fp32Avx2_1x1(const float*, const float*, const float*, int, const float*, bool, float*);
void Fp32Avx512_3x3(const float*, const float*, const float*, int, const float*, bool, float*);
void Fp32Avx512_1x1(const float*, const float*, const float*, int, const float*, bool, float*);
void Int8Avx2_3x3(const int32_t*, const float*, const float*, const uint8_t*, int, const uint32_t*, const float*, bool,
                  float*);

}  // namespace loa::kernels
