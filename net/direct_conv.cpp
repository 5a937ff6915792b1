#include "net/direct_conv.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "net/conv_kernels.h"
#include "net/cpu_features.h"

namespace loa {
namespace {

constexpr int kBlock = kernels::kConvBlock;
static_assert(kernels::kPlane == kPaddedPlane && kernels::kOrigin == kPaddedOrigin, "one padded layout");

// Float32 in plain C++, for processors without AVX2 (and for the tests that
// hold the kernels against each other).
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

// Int8 in plain C++: the same integer sums as the AVX2 kernel, the same
// fused multiply-add back to float, so the same outputs to the bit.
void PortableInt8Kernel(const int32_t* w, const float* mul, const float* add, const uint8_t* in, int groups,
                        const uint32_t* padding, const float* residual, bool relu, float* out) {
  int32_t acc[kBlock][kNumSquares] = {};
  for (int g = 0; g < groups; ++g) {
    const uint8_t* plane = in + std::size_t(g * kPaddedPlane + kPaddedOrigin) * 4;
    for (int t = 0; t < 9; ++t, w += kBlock) {
      const int dx = t % 3 - 1, offset = (t / 3 - 1) * 8 + dx;
      for (int s = 0; s < kNumSquares; ++s) {
        const int file = s & 7;
        const bool outside = file + dx < 0 || file + dx > 7;
        for (int o = 0; o < kBlock; ++o) {
          int32_t sum = 0;
          for (int k = 0; k < 4; ++k) {
            const int x = outside ? int((padding[g] >> (8 * k)) & 0xff) : plane[(s + offset) * 4 + k];
            sum += x * int8_t(uint32_t(w[o]) >> (8 * k));
          }
          acc[o][s] += sum;
        }
      }
    }
  }
  for (int o = 0; o < kBlock; ++o)
    for (int s = 0; s < kNumSquares; ++s) {
      const int i = o * kPaddedPlane + kPaddedOrigin + s;
      float v = std::fma(float(acc[o][s]), mul[o], add[o]) + (residual ? residual[i] : 0.0f);
      out[i] = relu && v < 0 ? 0.0f : v;
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

namespace {
DirectConv::Isa isa_limit = DirectConv::Isa::kAvx512;
}  // namespace

DirectConv::Isa DirectConv::BestIsa() {
  static const Isa best = Cpu().avx512f ? Isa::kAvx512 : Cpu().avx2_fma ? Isa::kAvx2 : Isa::kPortable;
  return std::min(best, isa_limit);
}

void DirectConv::LimitIsa(Isa isa) { isa_limit = isa; }

const char* DirectConv::IsaName(Isa isa) {
  return isa == Isa::kAvx512 ? "avx512" : isa == Isa::kAvx2 ? "avx2" : "portable";
}

void DirectConv::Run(const float* in, const float* residual, bool relu, float* out) const {
  RunWith(BestIsa(), in, residual, relu, out);
}

void DirectConv::RunWith(Isa isa, const float* in, const float* residual, bool relu, float* out) const {
  kernels::Fp32Kernel kernel = nullptr;
  switch (isa) {
    case Isa::kAvx512:
      kernel = kernel_ == 3 ? kernels::Fp32Avx512_3x3 : kernels::Fp32Avx512_1x1;
      break;
    case Isa::kAvx2:
      kernel = kernel_ == 3 ? kernels::Fp32Avx2_3x3 : kernels::Fp32Avx2_1x1;
      break;
    case Isa::kPortable:
      kernel = kernel_ == 3 ? PortableKernel<3> : PortableKernel<1>;
      break;
  }
  const std::size_t block_weights = std::size_t(in_) * kernel_ * kernel_ * kBlock;
  for (int block = 0; block < rounded_out_ / kBlock; ++block) {
    const std::size_t first = std::size_t(block) * kBlock * kPaddedPlane;
    kernel(packed_.data() + block * block_weights, bias_.data() + block * kBlock, in, in_,
           residual ? residual + first : nullptr, relu, out + first);
  }
}

ActivationQuantizer ActivationQuantizer::ForRanges(const std::vector<float>& min, const std::vector<float>& max) {
  assert(min.size() == max.size());
  ActivationQuantizer q;
  for (std::size_t c = 0; c < min.size(); ++c) {
    const float low = std::min(min[c], 0.0f), high = std::max(max[c], 0.0f);
    const float scale = high - low > 0 ? (high - low) / 127.0f : 1.0f;
    q.scale.push_back(scale);
    q.zero_point.push_back(uint8_t(std::lround(-low / scale)));
  }
  return q;
}

uint32_t ActivationQuantizer::GroupPadding(int g) const {
  uint32_t word = 0;
  for (int k = 0; k < 4 && 4 * g + k < channels(); ++k) word |= uint32_t(zero_point[4 * g + k]) << (8 * k);
  return word;
}

void ActivationQuantizer::Quantize(const float* padded, uint8_t* out) const {
  const int count = channels();
  for (int g = 0; g < (count + 3) / 4; ++g) {
    const uint32_t word = GroupPadding(g);
    uint32_t* group = reinterpret_cast<uint32_t*>(out) + g * kPaddedPlane;
    std::fill(group, group + kPaddedPlane, word);
  }
  for (int c = 0; c < count; ++c) {
    const float* plane = padded + c * kPaddedPlane + kPaddedOrigin;
    uint8_t* group = out + (std::size_t((c / 4) * kPaddedPlane + kPaddedOrigin) * 4) + c % 4;
    const float inverse = 1.0f / scale[c], shift = float(zero_point[c]) + 0.5f;
    for (int s = 0; s < kNumSquares; ++s)
      group[4 * s] = uint8_t(std::min(std::max(plane[s] * inverse + shift, 0.0f), 127.0f));
  }
}

Int8Conv::Int8Conv(const float* weight, int out, int in, const float* scale, const float* bias,
                   const ActivationQuantizer& input)
    : out_(out), in_(in), rounded_out_((out + kBlock - 1) / kBlock * kBlock), groups_((in + 3) / 4), input_(input) {
  assert(input.channels() == in);
  constexpr int kTaps = 9;
  for (int g = 0; g < groups_; ++g) padding_.push_back(input_.GroupPadding(g));
  packed_.assign(std::size_t(rounded_out_) * groups_ * kTaps, 0);
  mul_.assign(rounded_out_, 0.0f);
  add_.assign(rounded_out_, 0.0f);
  std::vector<float> folded(std::size_t(in_) * kTaps);
  for (int o = 0; o < out_; ++o) {
    // The weights that multiply the quantised values: x = (q - z) * scale[c].
    const float s = scale ? scale[o] : 1.0f;
    float largest = 0;
    for (int c = 0; c < in_; ++c)
      for (int t = 0; t < kTaps; ++t) {
        float& f = folded[c * kTaps + t];
        f = weight[(std::size_t(o) * in_ + c) * kTaps + t] * s * input_.scale[c];
        largest = std::max(largest, std::fabs(f));
      }
    const float weight_scale = largest > 0 ? largest / 127.0f : 1.0f;
    // The sum over the zero points' share: the padding holds them too, so
    // the correction is the same at every square.
    int64_t zero_sum = 0;
    const int block = o / kBlock, lane = o % kBlock;
    for (int c = 0; c < in_; ++c)
      for (int t = 0; t < kTaps; ++t) {
        const int q = int(std::lround(folded[c * kTaps + t] / weight_scale));
        zero_sum += int64_t(q) * input_.zero_point[c];
        uint32_t& packed =
            reinterpret_cast<uint32_t&>(packed_[((std::size_t(block) * groups_ + c / 4) * kTaps + t) * kBlock + lane]);
        packed |= uint32_t(uint8_t(int8_t(q))) << (8 * (c % 4));
      }
    mul_[o] = weight_scale;
    add_[o] = (bias ? bias[o] : 0.0f) - float(double(zero_sum) * weight_scale);
  }
}

void Int8Conv::Run(const float* in, uint8_t* quantized, const float* residual, bool relu, float* out) const {
  input_.Quantize(in, quantized);
  RunQuantized(quantized, residual, relu, out, DirectConv::BestIsa() >= DirectConv::Isa::kAvx2);
}

void Int8Conv::RunQuantized(const uint8_t* in, const float* residual, bool relu, float* out, bool avx2) const {
  const kernels::Int8Kernel kernel = avx2 ? kernels::Int8Avx2_3x3 : PortableInt8Kernel;
  const std::size_t block_weights = std::size_t(groups_) * 9 * kBlock;
  for (int block = 0; block < rounded_out_ / kBlock; ++block) {
    const std::size_t first = std::size_t(block) * kBlock * kPaddedPlane;
    kernel(packed_.data() + block * block_weights, mul_.data() + block * kBlock, add_.data() + block * kBlock, in,
           groups_, padding_.data(), residual ? residual + first : nullptr, relu, out + first);
  }
}

void PadPlanes(const float* planes, int count, float* padded) {
  std::memset(padded, 0, sizeof(float) * count * kPaddedPlane);
  for (int p = 0; p < count; ++p)
    std::memcpy(padded + p * kPaddedPlane + kPaddedOrigin, planes + p * kNumSquares, kNumSquares * sizeof(float));
}

}  // namespace loa
