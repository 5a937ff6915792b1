// The Eigen evaluator's convolution kernel against a plain reference.

#include <gtest/gtest.h>

#include <random>
#include <vector>

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

TEST(DirectConvTest, BothKernelsMatchTheDefinition) {
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
          for (bool portable : {false, true}) {
            std::vector<float> out(conv.rounded_out() * kPaddedPlane, 0.0f);
            const float* add = with_residual ? padded_residual.data() : nullptr;
            if (portable)
              conv.RunPortable(padded_in.data(), add, relu, out.data());
            else
              conv.Run(padded_in.data(), add, relu, out.data());
            SCOPED_TRACE(testing::Message() << "kernel " << kernel << " out " << out_channels << " relu " << relu
                                            << " residual " << with_residual << " portable " << portable);
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

}  // namespace
}  // namespace loa
