// The trunk's convolutions on oneDNN against the definition: float32 to
// rounding, int8 within the rounding of its quantized inputs and weights,
// for inputs that are never negative (u8) and that can be (s8), with and
// without a residual, one position and a batch.

#include "net/onednn_trunk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/random.h"

namespace loa {
namespace {

// Returns relu(conv3x3(in) * scale + bias + residual) for n positions of
// NHWC activations, straight from the definition.
std::vector<float> Reference(const TrunkConvWeights& w, int n, const std::vector<float>& in,
                             const std::vector<float>* residual) {
  std::vector<float> out(std::size_t(n) * 64 * w.out);
  for (int p = 0; p < n; ++p)
    for (int r = 0; r < 8; ++r)
      for (int f = 0; f < 8; ++f)
        for (int o = 0; o < w.out; ++o) {
          double sum = 0;
          for (int c = 0; c < w.in; ++c)
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 3; ++kx) {
                const int rr = r + ky - 1, ff = f + kx - 1;
                if (rr < 0 || rr > 7 || ff < 0 || ff > 7) continue;
                sum += double(w.weight[((o * w.in + c) * 3 + ky) * 3 + kx]) * in[(p * 64 + rr * 8 + ff) * w.in + c];
              }
          const std::size_t i = (std::size_t(p) * 64 + r * 8 + f) * w.out + o;
          double v = sum * w.scale[o] + w.bias[o] + (residual ? (*residual)[i] : 0.0);
          out[i] = float(std::max(v, 0.0));
        }
  return out;
}

TrunkConvWeights RandomWeights(int out, int in, Rng& rng) {
  auto normal = [&rng] { return float(rng.Normal()); };
  TrunkConvWeights w;
  w.out = out;
  w.in = in;
  for (int i = 0; i < out * in * 9; ++i) w.weight.push_back(normal() / std::sqrt(9.0f * in));
  for (int o = 0; o < out; ++o) {
    w.scale.push_back(0.5f + std::abs(normal()));
    w.bias.push_back(0.1f * normal());
  }
  return w;
}

TEST(OneDnnTrunkTest, ConvolutionsFollowTheDefinitionInBothPrecisions) {
  Rng rng(3);
  auto normal = [&rng] { return float(rng.Normal()); };
  for (int n : {1, 5}) {
    for (bool negative_inputs : {false, true}) {
      const int in_channels = 7, out_channels = 16;
      const TrunkConvWeights w = RandomWeights(out_channels, in_channels, rng);
      std::vector<float> in(std::size_t(n) * 64 * in_channels), residual(std::size_t(n) * 64 * out_channels);
      ChannelRanges range{std::vector<float>(in_channels, 0.0f), std::vector<float>(in_channels, 0.0f)};
      for (std::size_t i = 0; i < in.size(); ++i) {
        const int c = int(i % in_channels);
        // Channels of different sizes, as a trunk has.
        in[i] = (std::abs(normal()) - (negative_inputs ? 0.5f : 0.0f)) * float(1 + c % 3);
        range.min[c] = std::min(range.min[c], in[i]);
        range.max[c] = std::max(range.max[c], in[i]);
      }
      for (float& x : residual) x = normal();
      for (bool with_residual : {false, true}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " negative " << negative_inputs << " residual "
                                        << with_residual);
        const std::vector<float> expected = Reference(w, n, in, with_residual ? &residual : nullptr);
        for (auto type : {OneDnnTrunk::Type::kFp32, OneDnnTrunk::Type::kInt8}) {
          const OneDnnTrunk trunk({w}, type, {range});
          std::vector<unsigned char> scratch(trunk.ScratchBytes(n));
          std::vector<float> out(residual.size(), -7.0f);
          if (with_residual) out = residual;  // in place, as the trunk runs its second convolutions
          trunk.Run(0, n, in.data(), with_residual ? out.data() : nullptr, out.data(), scratch.data());
          // Bound per output: float rounding, or in int8 half an input step
          // times |w| plus half a weight step times |x|, over the taps.
          for (int o = 0; o < out_channels; ++o) {
            double bound = 1e-4;
            if (type == OneDnnTrunk::Type::kInt8) {
              double input_rounding = 0, largest = 0, sum_x = 0;
              for (int c = 0; c < in_channels; ++c) {
                const double step = std::max(range.max[c], -range.min[c]) / 127.0;
                for (int t = 0; t < 9; ++t) {
                  const double wt = std::abs(w.weight[(o * in_channels + c) * 9 + t]) * w.scale[o];
                  input_rounding += 0.5 * step * wt;
                  largest = std::max(largest, wt * step);
                }
                sum_x += 9 * 127;
              }
              const double weight_step = largest / (negative_inputs ? 63.0 : 127.0);
              bound += input_rounding + 0.5 * weight_step * sum_x;
            }
            for (int i = 0; i < n * 64; ++i) {
              const std::size_t k = std::size_t(i) * out_channels + o;
              ASSERT_NEAR(out[k], expected[k], bound)
                  << (type == OneDnnTrunk::Type::kInt8 ? "int8" : "fp32") << " output " << o << " square " << i;
            }
          }
        }
      }
    }
  }
}

TEST(OneDnnTrunkTest, NamesItsVersionAndKernels) {
  const std::string version = OneDnnVersion();
  EXPECT_EQ(version.rfind("2.", 0), 0u) << version;
  EXPECT_NE(version.find('('), std::string::npos) << version;
}

}  // namespace
}  // namespace loa
