// The Eigen evaluator's convolution kernel against a plain reference.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "net/cpu_features.h"
#include "net/direct_conv.h"

namespace loa {
namespace {

// Returns conv(in) + bias (+ residual), ReLU'd when asked, on 8 x 8 planes
// (NCHW, no padding), straight from the definition.
std::vector<float> Reference(const std::vector<float>& weight, const std::vector<float>& bias,
                             const std::vector<float>& in, const std::vector<float>* residual, int out_channels,
                             int in_channels, int kernel, bool relu) {
  std::vector<float> out(out_channels * kNumSquares);
  for (int o = 0; o < out_channels; ++o)
    for (int r = 0; r < 8; ++r)
      for (int f = 0; f < 8; ++f) {
        double sum = bias[o];
        for (int c = 0; c < in_channels; ++c)
          for (int ky = 0; ky < kernel; ++ky)
            for (int kx = 0; kx < kernel; ++kx) {
              int rr = r + ky - kernel / 2, ff = f + kx - kernel / 2;
              if (rr < 0 || rr > 7 || ff < 0 || ff > 7) continue;
              sum += double(weight[((o * in_channels + c) * kernel + ky) * kernel + kx]) *
                     in[c * kNumSquares + rr * 8 + ff];
            }
        if (residual) sum += (*residual)[o * kNumSquares + r * 8 + f];
        out[o * kNumSquares + r * 8 + f] = relu && sum < 0 ? 0.0f : float(sum);
      }
  return out;
}

// The kernels this processor can run.
std::vector<DirectConv::Isa> RunnableIsas() {
  std::vector<DirectConv::Isa> isas = {DirectConv::Isa::kPortable};
  if (Cpu().avx2_fma) isas.push_back(DirectConv::Isa::kAvx2);
  if (Cpu().avx512f) isas.push_back(DirectConv::Isa::kAvx512);
  return isas;
}

TEST(DirectConvTest, EveryKernelMatchesTheDefinition) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (int kernel : {1, 3}) {
    for (int out_channels : {4, 7, 16}) {
      const int in_channels = 5;
      std::vector<float> weight(out_channels * in_channels * kernel * kernel), bias(out_channels);
      std::vector<float> in(in_channels * kNumSquares), residual(out_channels * kNumSquares);
      for (float& x : weight) x = normal(rng);
      for (float& x : bias) x = normal(rng);
      for (float& x : in) x = normal(rng);
      for (float& x : residual) x = normal(rng);
      std::vector<float> scale(out_channels, 1.0f);
      DirectConv conv(weight.data(), out_channels, in_channels, kernel, scale.data(), bias.data());
      std::vector<float> padded_in(in_channels * kPaddedPlane), padded_residual(conv.rounded_out() * kPaddedPlane);
      PadPlanes(in.data(), in_channels, padded_in.data());
      PadPlanes(residual.data(), out_channels, padded_residual.data());
      for (bool relu : {false, true}) {
        for (bool with_residual : {false, true}) {
          std::vector<float> expected =
              Reference(weight, bias, in, with_residual ? &residual : nullptr, out_channels, in_channels, kernel, relu);
          for (DirectConv::Isa isa : RunnableIsas()) {
            std::vector<float> out(conv.rounded_out() * kPaddedPlane, 0.0f);
            const float* add = with_residual ? padded_residual.data() : nullptr;
            conv.RunWith(isa, padded_in.data(), add, relu, out.data());
            SCOPED_TRACE(testing::Message() << "kernel " << kernel << " out " << out_channels << " relu " << relu
                                            << " residual " << with_residual << " isa " << DirectConv::IsaName(isa));
            // The padding is never written and the planes past out_channels are zero.
            for (int o = 0; o < conv.rounded_out(); ++o)
              for (int i = 0; i < kPaddedPlane; ++i) {
                const int s = i - kPaddedOrigin;
                const bool computed = o < out_channels && s >= 0 && s < kNumSquares;
                ASSERT_NEAR(out[o * kPaddedPlane + i], computed ? expected[o * kNumSquares + s] : 0.0f, 1e-4f)
                    << "plane " << o << " offset " << i;
              }
          }
        }
      }
    }
  }
}

TEST(ActivationQuantizerTest, MapsEachChannelsRangeOntoSevenBitsWithZeroExact) {
  // 5 channels: two groups, the second with 3 missing channels; channel 1
  // takes negative values, channel 3 none at all.
  const std::vector<float> min = {0.5f, -1.0f, 0.0f, 0.0f, 0.0f}, max = {2.54f, 3.0f, 0.1f, 0.0f, 12.7f};
  const ActivationQuantizer q = ActivationQuantizer::ForRanges(min, max);
  ASSERT_EQ(q.channels(), 5);
  EXPECT_EQ(q.zero_point, (std::vector<uint8_t>{0, 32, 0, 0, 0}));  // 32: 127 / 4, rounded
  EXPECT_FLOAT_EQ(q.scale[0], 0.02f);                               // min widened to 0
  EXPECT_FLOAT_EQ(q.scale[1], 4.0f / 127);
  EXPECT_FLOAT_EQ(q.scale[3], 1.0f);
  EXPECT_FLOAT_EQ(q.scale[4], 0.1f);
  EXPECT_EQ(q.GroupPadding(0), 32u << 8);
  EXPECT_EQ(q.GroupPadding(1), 0u);

  std::vector<float> planes(5 * kNumSquares);
  for (int c = 0; c < 5; ++c)
    for (int s = 0; s < kNumSquares; ++s)
      planes[c * kNumSquares + s] = min[c] + (max[c] - min[c]) * float((s * 7 + c) % 64) / 63.0f;
  planes[1 * kNumSquares + 5] = 9.0f;  // beyond the range: clamped to 127
  std::vector<float> padded(5 * kPaddedPlane);
  PadPlanes(planes.data(), 5, padded.data());
  std::vector<uint8_t> bytes(ActivationQuantizer::Bytes(5));
  ASSERT_EQ(bytes.size(), std::size_t(2 * kPaddedPlane * 4));
  q.Quantize(padded.data(), bytes.data());
  for (int g = 0; g < 2; ++g)
    for (int i = 0; i < kPaddedPlane; ++i)
      for (int k = 0; k < 4; ++k) {
        const int c = 4 * g + k, s = i - kPaddedOrigin;
        const uint8_t got = bytes[(g * kPaddedPlane + i) * 4 + k];
        if (c >= 5) {
          EXPECT_EQ(got, 0) << "missing channel " << c << " offset " << i;
        } else if (s < 0 || s >= kNumSquares) {
          EXPECT_EQ(got, q.zero_point[c]) << "padding, channel " << c << " offset " << i;
        } else {
          const float x = planes[c * kNumSquares + s];
          const float expected = std::min(std::max(std::round(x / q.scale[c]) + q.zero_point[c], 0.0f), 127.0f);
          EXPECT_NEAR(got, expected, 1.0f) << "channel " << c << " square " << s;  // ties may round either way
        }
      }
  EXPECT_EQ(bytes[(kPaddedOrigin + 5) * 4 + 1], 127);
}

// Int8: the AVX2 and portable kernels give the same floats (exact integer
// sums, the same multiply-add back), and both are the float convolution
// within the rounding of 7-bit activations and 8-bit weights.
TEST(Int8ConvTest, KernelsAgreeAndFollowTheFloatConvolution) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (int out_channels : {4, 7}) {
    for (int in_channels : {5, 16}) {
      std::vector<float> weight(out_channels * in_channels * 9), bias(out_channels), scale(out_channels);
      for (float& x : weight) x = normal(rng) / std::sqrt(9.0f * in_channels);
      for (float& x : bias) x = 0.1f * normal(rng);
      for (float& x : scale) x = 0.5f + std::abs(normal(rng));
      for (bool with_negative_inputs : {false, true}) {
        std::vector<float> in(in_channels * kNumSquares), residual(out_channels * kNumSquares);
        std::vector<float> min(in_channels, 0.0f), max(in_channels, 0.0f);
        for (int c = 0; c < in_channels; ++c)
          for (int s = 0; s < kNumSquares; ++s) {
            // Channels of different sizes, as a trunk has.
            float& x = in[c * kNumSquares + s];
            x = (std::abs(normal(rng)) - (with_negative_inputs ? 0.5f : 0.0f)) * float(1 + c % 3);
            min[c] = std::min(min[c], x);
            max[c] = std::max(max[c], x);
          }
        for (float& x : residual) x = normal(rng);
        const ActivationQuantizer input = ActivationQuantizer::ForRanges(min, max);
        EXPECT_EQ(input.zero_point[0] != 0, with_negative_inputs);
        Int8Conv conv(weight.data(), out_channels, in_channels, scale.data(), bias.data(), input);
        std::vector<float> folded(weight.size());
        for (std::size_t i = 0; i < weight.size(); ++i) folded[i] = weight[i] * scale[i / (in_channels * 9)];
        std::vector<float> padded_in(in_channels * kPaddedPlane), padded_residual(conv.rounded_out() * kPaddedPlane);
        PadPlanes(in.data(), in_channels, padded_in.data());
        PadPlanes(residual.data(), out_channels, padded_residual.data());
        std::vector<uint8_t> quantized(conv.input_bytes());
        input.Quantize(padded_in.data(), quantized.data());
        for (bool relu : {false, true}) {
          for (bool with_residual : {false, true}) {
            SCOPED_TRACE(testing::Message()
                         << "out " << out_channels << " in " << in_channels << " negative " << with_negative_inputs
                         << " relu " << relu << " residual " << with_residual);
            const float* add = with_residual ? padded_residual.data() : nullptr;
            std::vector<float> portable(conv.rounded_out() * kPaddedPlane, 0.0f), fast = portable;
            conv.RunQuantized(quantized.data(), add, relu, portable.data(), /*avx2=*/false);
            std::vector<float> expected =
                Reference(folded, bias, in, with_residual ? &residual : nullptr, out_channels, in_channels, 3, relu);
            // Each output is off by at most the rounding of its inputs
            // (half an input step times |w|, over the taps) plus that of its
            // weights (half a weight step of the weights on quantised
            // values, times up to 127, over the taps).
            double error = 0;
            for (int o = 0; o < out_channels; ++o) {
              double input_rounding = 0, max_w = 0;
              for (int c = 0; c < in_channels; ++c)
                for (int t = 0; t < 9; ++t) {
                  const double w = std::abs(folded[(o * in_channels + c) * 9 + t]);
                  input_rounding += 0.5 * input.scale[c] * w;
                  max_w = std::max(max_w, w * input.scale[c]);
                }
              const double weight_step = max_w / 127;
              const double bound = input_rounding + 0.5 * weight_step * 127 * 9 * in_channels + 1e-5;
              for (int s = 0; s < kNumSquares; ++s) {
                const double e = std::abs(portable[o * kPaddedPlane + PaddedIndex(s)] - expected[o * kNumSquares + s]);
                ASSERT_LE(e, bound) << "output " << o << " square " << s;
                error = std::max(error, e);
              }
            }
            EXPECT_GT(error, 0.0) << "suspiciously exact: is it quantising at all?";
            if (!Cpu().avx2_fma) continue;
            conv.RunQuantized(quantized.data(), add, relu, fast.data(), /*avx2=*/true);
            for (std::size_t i = 0; i < fast.size(); ++i) ASSERT_EQ(fast[i], portable[i]) << "at " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace loa
