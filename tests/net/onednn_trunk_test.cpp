// The net's layers on oneDNN against the definition: float32 to rounding,
// int8 within the rounding of its quantized inputs and weights, for inputs
// that are never negative (u8) and that can be (s8), with and without a
// residual, one position and a batch; 1x1 convolutions and a linear layer
// as a convolution of kernel 8; and activations passed between layers in
// 8 bits.

#include "net/onednn_trunk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/random.h"

namespace loa {
namespace {

// Returns relu?(conv(in) * scale + bias + residual) for n positions of
// NHWC activations, straight from the definition (a kernel of k, the board
// kept by padding or not).
std::vector<float> Reference(const TrunkConvWeights& w, int n, const std::vector<float>& in,
                             const std::vector<float>* residual) {
  const int k = w.kernel, pad = w.keep_board ? k / 2 : 0, side = 8 + 2 * pad - k + 1;
  std::vector<float> out(std::size_t(n) * side * side * w.out);
  for (int p = 0; p < n; ++p)
    for (int r = 0; r < side; ++r)
      for (int f = 0; f < side; ++f)
        for (int o = 0; o < w.out; ++o) {
          double sum = 0;
          for (int c = 0; c < w.in; ++c)
            for (int ky = 0; ky < k; ++ky)
              for (int kx = 0; kx < k; ++kx) {
                const int rr = r + ky - pad, ff = f + kx - pad;
                if (rr < 0 || rr > 7 || ff < 0 || ff > 7) continue;
                sum += double(w.weight[((o * w.in + c) * k + ky) * k + kx]) * in[(p * 64 + rr * 8 + ff) * w.in + c];
              }
          const std::size_t i = ((std::size_t(p) * side + r) * side + f) * w.out + o;
          double v = sum * w.scale[o] + w.bias[o] + (residual ? (*residual)[i] : 0.0);
          out[i] = float(w.relu ? std::max(v, 0.0) : v);
        }
  return out;
}

TrunkConvWeights RandomWeights(int out, int in, Rng& rng, int kernel = 3) {
  auto normal = [&rng] { return float(rng.Normal()); };
  TrunkConvWeights w;
  w.out = out;
  w.in = in;
  w.kernel = kernel;
  const int taps = kernel * kernel;
  for (int i = 0; i < out * in * taps; ++i) w.weight.push_back(normal() / std::sqrt(float(taps * in)));
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
          const OneDnnTrunk trunk({w}, type, {QuantizedIo::FloatInput(range)});
          std::vector<unsigned char> scratch(trunk.ScratchBytes(n));
          OneDnnBindings bindings;
          std::vector<float> out(residual.size(), -7.0f);
          if (with_residual) out = residual;  // in place, as the trunk runs its second convolutions
          trunk.Run(0, n, in.data(), with_residual ? out.data() : nullptr, out.data(), scratch.data(), bindings);
          // Bound per output: float rounding, or in int8 half an input step
          // times |w| plus half a weight step times |x|, over the taps.
          const std::vector<float> steps = QuantizationSteps(range);
          const double levels = negative_inputs ? kMaxSigned : MaxUnsigned();
          for (int o = 0; o < out_channels; ++o) {
            double bound = 1e-4;
            if (type == OneDnnTrunk::Type::kInt8) {
              double input_rounding = 0, largest = 0, sum_x = 0;
              for (int c = 0; c < in_channels; ++c) {
                const double step = steps[c];
                EXPECT_NEAR(step, std::max(range.max[c], -range.min[c]) / levels, 1e-6);
                for (int t = 0; t < 9; ++t) {
                  const double wt = std::abs(w.weight[(o * in_channels + c) * 9 + t]) * w.scale[o];
                  input_rounding += 0.5 * step * wt;
                  largest = std::max(largest, wt * step);
                }
                sum_x += 9 * levels;
              }
              const double weight_step =
                  largest / (Levels().MaxWeight(negative_inputs) / Levels().WeightGrain(negative_inputs));
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

// The range of each channel of NHWC activations.
ChannelRanges RangeOf(const std::vector<float>& values, int channels) {
  ChannelRanges range{std::vector<float>(channels, 0.0f), std::vector<float>(channels, 0.0f)};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int c = int(i % channels);
    range.min[c] = std::min(range.min[c], values[i]);
    range.max[c] = std::max(range.max[c], values[i]);
  }
  return range;
}

// The largest magnitude of values.
float Largest(const std::vector<float>& values) {
  float m = 0;
  for (float x : values) m = std::max(m, std::abs(x));
  return m;
}

// A block's worth of layers passing 8 bits from one to the next, as the
// int8 net runs them: a stem from floats writes u8; a convolution reads it
// and writes u8 for a second, which adds the stem's u8 output in place (a
// residual at the same steps) and writes u8; a 1x1 convolution reads that
// and writes floats. Each step from the float outputs' ranges; every
// output within a few steps of the float32 chain.
TEST(OneDnnTrunkTest, EightBitActivationsPassFromLayerToLayer) {
  Rng rng(5);
  const int n = 3, channels = 16;
  std::vector<float> in(std::size_t(n) * 64 * 7);
  for (float& x : in) x = std::abs(float(rng.Normal()));
  std::vector<TrunkConvWeights> layers{RandomWeights(channels, 7, rng), RandomWeights(channels, channels, rng),
                                       RandomWeights(channels, channels, rng), RandomWeights(5, channels, rng, 1)};
  // The float chain.
  const std::vector<float> stem = Reference(layers[0], n, in, nullptr);
  const std::vector<float> mid = Reference(layers[1], n, stem, nullptr);
  const std::vector<float> sum = Reference(layers[2], n, mid, &stem);
  const std::vector<float> heads = Reference(layers[3], n, sum, nullptr);
  // The state (stem and sum) at one step a channel, the union of both.
  const ChannelRanges stem_range = RangeOf(stem, channels), sum_range = RangeOf(sum, channels);
  const std::vector<float> state_step = QuantizationSteps(UnionOfRanges({&stem_range, &sum_range}));
  const std::vector<float> mid_step = QuantizationSteps(RangeOf(mid, channels));
  std::vector<QuantizedIo> io(4);
  io[0] = QuantizedIo::FloatInput(RangeOf(in, 7));
  io[0].output_step = state_step;
  io[1].input_step = state_step;
  io[1].quantized_input = true;
  io[1].output_step = mid_step;
  io[2].input_step = mid_step;
  io[2].quantized_input = true;
  io[2].output_step = state_step;
  io[3].input_step = state_step;
  io[3].quantized_input = true;
  const OneDnnTrunk trunk(layers, OneDnnTrunk::Type::kInt8, io);
  std::vector<unsigned char> scratch(trunk.ScratchBytes(n)), state(std::size_t(n) * 64 * channels), inner(state.size());
  OneDnnBindings bindings;
  std::vector<float> out(heads.size(), -7.0f);
  trunk.Run(0, n, in.data(), nullptr, state.data(), scratch.data(), bindings);
  // The stem's bytes are the float stem at the state's steps.
  for (std::size_t i = 0; i < stem.size(); ++i)
    ASSERT_NEAR(state[i] * state_step[i % channels], stem[i], 0.05 * Largest(stem)) << "stem " << i;
  trunk.Run(1, n, state.data(), nullptr, inner.data(), scratch.data(), bindings);
  trunk.Run(2, n, inner.data(), state.data(), state.data(), scratch.data(), bindings);
  for (std::size_t i = 0; i < sum.size(); ++i)
    ASSERT_NEAR(state[i] * state_step[i % channels], sum[i], 0.05 * Largest(sum)) << "block " << i;
  trunk.Run(3, n, state.data(), nullptr, out.data(), scratch.data(), bindings);
  for (std::size_t i = 0; i < heads.size(); ++i) ASSERT_NEAR(out[i], heads[i], 0.05 * Largest(heads)) << "head " << i;
}

// A linear layer over a position's NHWC values (a dense head's first
// layer) as a convolution of kernel 8 without padding, and a 1x1 one
// without a ReLU (the policy's output), in both precisions.
TEST(OneDnnTrunkTest, LinearLayersAndOneByOneConvolutions) {
  Rng rng(9);
  const int n = 4, channels = 6;
  std::vector<float> in(std::size_t(n) * 64 * channels);
  for (float& x : in) x = std::abs(float(rng.Normal()));
  TrunkConvWeights linear = RandomWeights(10, channels, rng, 8), pointwise = RandomWeights(8, channels, rng, 1);
  linear.keep_board = false;
  pointwise.relu = false;
  EXPECT_EQ(linear.OutputSquares(), 1);
  EXPECT_EQ(pointwise.OutputSquares(), 64);
  for (const TrunkConvWeights& w : {linear, pointwise}) {
    const std::vector<float> expected = Reference(w, n, in, nullptr);
    ASSERT_EQ(expected.size(), std::size_t(n) * w.OutputSquares() * w.out);
    if (!w.relu) {
      EXPECT_LT(*std::min_element(expected.begin(), expected.end()), 0.0f);
    }
    for (auto type : {OneDnnTrunk::Type::kFp32, OneDnnTrunk::Type::kInt8}) {
      const OneDnnTrunk trunk({w}, type, {QuantizedIo::FloatInput(RangeOf(in, channels))});
      std::vector<unsigned char> scratch(trunk.ScratchBytes(n));
      OneDnnBindings bindings;
      std::vector<float> out(expected.size(), -7.0f);
      trunk.Run(0, n, in.data(), nullptr, out.data(), scratch.data(), bindings);
      // In int8 the error of an output is a sum of many independent
      // roundings (each input to half its step, each weight to half its
      // channel's): five of its standard deviations, computed from the
      // levels the kernels allow (on VNNI the bound is tighter).
      const std::vector<float> step = QuantizationSteps(RangeOf(in, channels));
      const int taps = w.kernel * w.kernel, side = w.OutputSquares() == 1 ? 1 : 8;
      for (std::size_t i = 0; i < out.size(); ++i) {
        double bound = 1e-4;
        if (type == OneDnnTrunk::Type::kInt8) {
          const int o = int(i % w.out), square = int(i / w.out % (side * side)), p = int(i / w.out / (side * side));
          double largest = 0;
          for (int j = 0; j < w.in * taps; ++j)
            largest = std::max(largest, std::abs(double(w.weight[o * w.in * taps + j]) * w.scale[o] * step[j / taps]));
          const double weight_step = largest / Levels().max_weight;  // in units of an input step
          double variance = 0;
          for (int c = 0; c < w.in; ++c)
            for (int t = 0; t < taps; ++t) {
              // The tap's input square: the kernel's own for a linear
              // layer, the output's for a 1x1 convolution.
              const int sq = w.kernel == 8 ? t : square;
              const double x = in[(std::size_t(p) * 64 + sq) * w.in + c];
              const double wt = double(w.weight[(o * w.in + c) * taps + t]) * w.scale[o];
              variance +=
                  (wt * step[c]) * (wt * step[c]) / 12 + (x / step[c] * weight_step) * (x / step[c] * weight_step) / 12;
            }
          bound += 5 * std::sqrt(variance);
        }
        ASSERT_NEAR(out[i], expected[i], bound) << "kernel " << w.kernel << " type " << int(type) << " at " << i;
      }
    }
  }
}

// The levels follow the kernels: eight bits for every activation and
// weight where byte products are summed in 32 bits (VNNI, AMX); else seven
// for an unsigned activation and for a signed input's weights, so that no
// 16-bit pair sum can saturate.
TEST(OneDnnTrunkTest, LevelsFollowTheKernels) {
  const Int8Levels& l = Levels();
  EXPECT_EQ(l.wide, WideByteSums());
  EXPECT_EQ(MaxUnsigned(), l.wide ? 255.0f : 127.0f);
  for (bool signed_input : {false, true}) {
    // The largest pair of products a kernel adds, in the units it adds
    // them: a signed input is shifted up by 128 (to 1..255), and without
    // VNNI oneDNN halves its weights.
    const double input = signed_input ? kMaxSigned + 128 : l.max_unsigned;
    const double weight = l.MaxWeight(signed_input) / (signed_input && !l.wide ? 2.0 : 1.0);
    if (!l.wide) {
      EXPECT_LE(2 * input * weight, 32767.0) << "signed " << signed_input;
    }
    EXPECT_LE(l.MaxWeight(signed_input), 127.0f);
    EXPECT_EQ(std::fmod(l.MaxWeight(signed_input), float(l.WeightGrain(signed_input))), 0.0f);
  }
  EXPECT_NE(l.Describe().find("u8 0.." + std::to_string(int(l.max_unsigned)) + ","), std::string::npos) << l.Describe();
  const ChannelRanges positive{{0.0f, 0.0f}, {2.0f, 0.0f}}, negative{{-1.0f, 0.0f}, {0.5f, 0.0f}};
  EXPECT_FLOAT_EQ(QuantizationSteps(positive)[0], 2.0f / MaxUnsigned());
  EXPECT_FLOAT_EQ(QuantizationSteps(positive)[1], 1.0f);  // a channel that never moved
  EXPECT_FLOAT_EQ(QuantizationSteps(negative)[0], 1.0f / kMaxSigned);
  EXPECT_EQ(Quantized(3.0f, 1.0f, 0.0f, MaxUnsigned()), 3.0f);
  EXPECT_EQ(Quantized(-3.0f, 1.0f, 0.0f, MaxUnsigned()), 0.0f);
  EXPECT_EQ(Quantized(1000.0f, 1.0f, -kMaxSigned, kMaxSigned), kMaxSigned);
  EXPECT_EQ(Quantized(2.5f, 1.0f, -kMaxSigned, kMaxSigned), 2.0f);  // to nearest, ties to even
}

// The sums that could saturate: every input at the top of its range
// times every weight at the largest level, for unsigned and signed inputs
// (many input channels, so that the kernels add many pairs), and a weight
// of the smallest nonzero level beside the largest (which oneDNN's halving
// of a signed input's weights would turn to zero were it odd). Each output
// must be the float result to a step.
TEST(OneDnnTrunkTest, TheLargestSumsDoNotSaturate) {
  for (bool signed_input : {false, true}) {
    SCOPED_TRACE(testing::Message() << "signed " << signed_input);
    const int in = 32, out = 3;
    TrunkConvWeights w;
    w.in = in;
    w.out = out;
    w.kernel = 1;
    w.relu = false;
    const float smallest = Levels().WeightGrain(signed_input) / Levels().MaxWeight(signed_input);
    for (int o = 0; o < out; ++o)
      for (int c = 0; c < in; ++c)
        // 0: every weight the largest; 1: the largest, then the negated
        // largest (pairs of opposite products); 2: the largest and the
        // smallest level.
        w.weight.push_back(o == 0 ? 1.0f : o == 1 ? (c % 2 ? -1.0f : 1.0f) : c == 0 ? 1.0f : smallest);
    w.scale.assign(out, 1.0f);
    w.bias.assign(out, 0.0f);
    std::vector<float> x(std::size_t(64) * in, 1.0f);  // the top of the range
    ChannelRanges range{std::vector<float>(in, signed_input ? -1.0f : 0.0f), std::vector<float>(in, 1.0f)};
    for (int c = 0; c < in; ++c) x[c] = 0.0f;  // square a1: the largest level at channel 0 only
    x[0] = 1.0f;
    const OneDnnTrunk trunk({w}, OneDnnTrunk::Type::kInt8, {QuantizedIo::FloatInput(range)});
    std::vector<unsigned char> scratch(trunk.ScratchBytes(1));
    OneDnnBindings bindings;
    std::vector<float> y(std::size_t(64) * out, -7.0f);
    trunk.Run(0, 1, x.data(), nullptr, y.data(), scratch.data(), bindings);
    const std::vector<float> expected = Reference(w, 1, x, nullptr);
    for (std::size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], expected[i], 1e-3 * std::max(1.0f, std::abs(expected[i])))
          << "square " << i / out << " output " << i % out;
    // Every square but a1: the third output is the largest weight plus 31
    // of the smallest level.
    EXPECT_NEAR(y[64 * out - 1], 1.0f + 31 * smallest, 1e-3);
  }
}

// The board's 3x3 and 1x1 convolutions run on oneDNN's direct JIT kernels,
// faster there than its first choice, except on AMX (brgemm's tiles); a
// linear layer keeps oneDNN's choice.
TEST(OneDnnTrunkTest, TheBoardsConvolutionsTakeTheDirectKernels) {
  Rng rng(11);
  TrunkConvWeights linear = RandomWeights(4, 8, rng, 8);
  linear.keep_board = false;
  const std::vector<TrunkConvWeights> layers{RandomWeights(8, 8, rng), RandomWeights(8, 8, rng, 1), linear};
  const ChannelRanges range{std::vector<float>(8, 0.0f), std::vector<float>(8, 1.0f)};
  const std::vector<QuantizedIo> io(3, QuantizedIo::FloatInput(range));
  const bool amx = OneDnnVersion().find("(amx)") != std::string::npos;
  for (auto type : {OneDnnTrunk::Type::kFp32, OneDnnTrunk::Type::kInt8}) {
    const OneDnnTrunk trunk(layers, type, io);
    for (int layer : {0, 1}) {
      const std::string name = trunk.Implementation(layer, 64);
      SCOPED_TRACE(name);
      EXPECT_EQ(name.rfind("jit", 0) == 0, !amx) << "layer " << layer;
    }
    EXPECT_FALSE(trunk.Implementation(2, 64).empty());
  }
}

TEST(OneDnnTrunkTest, NamesItsVersionAndKernels) {
  const std::string version = OneDnnVersion();
  EXPECT_EQ(version.rfind("2.", 0), 0u) << version;
  EXPECT_NE(version.find('('), std::string::npos) << version;
}

}  // namespace
}  // namespace loa
