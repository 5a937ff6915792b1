#pragma once
// Random nets for tests: every tensor of the layout drawn from a fixed seed,
// batch-norm statistics included (so that folding them is exercised); and
// the comparison of two evaluators' outputs.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/position.h"
#include "core/random.h"
#include "core/random_play.h"
#include "mcts/evaluator.h"
#include "net/encoder.h"
#include "net/export.h"

namespace loa::testing {

// Returns an export of config with random weights: N(0, 1 / fan_in) for
// weights, small biases, BN scale and shift near 1 and 0, running means
// near 0 and variances in [0.5, 1.5].
inline ExportedNet RandomExport(const NetConfig& config, uint32_t seed) {
  Rng rng(seed);
  ExportedNet net;
  net.config = config;
  net.rules = "simultaneous=draw start=standard max_plies=0";
  net.step = 1234;
  net.source = "random net";
  for (const auto& [name, shape] : TensorLayout(config)) {
    HostTensor t;
    t.shape = shape;
    t.data.resize(t.NumElements());
    auto ends_with = [&](const std::string& suffix) {
      return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    const bool bn = name.find(".bn") != std::string::npos;
    auto normal = [](Rng& r) { return float(r.Normal()); };
    auto uniform = [](Rng& r) { return float(0.5 + r.Uniform()); };
    double fan_in = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) fan_in *= double(shape[i]);
    for (float& x : t.data) {
      if (bn && ends_with("running_var"))
        x = uniform(rng);
      else if (bn && ends_with("weight"))
        x = 1.0f + 0.2f * normal(rng);
      else if (bn)
        x = 0.2f * normal(rng);
      else if (ends_with("bias"))
        x = 0.1f * normal(rng);
      else
        x = normal(rng) / float(std::sqrt(fan_in));
    }
    net.tensors[name] = std::move(t);
  }
  return net;
}

// A small config for fast tests; pooling and moves-left as asked.
inline NetConfig SmallConfig(int blocks, int channels, int pooling_every, bool moves_left) {
  NetConfig c;
  c.blocks = blocks;
  c.channels = channels;
  c.global_pooling_every = pooling_every;
  c.policy_channels = 8;
  c.value_channels = 4;
  c.value_hidden = 16;
  c.moves_left = moves_left;
  c.moves_left_channels = 2;
  c.moves_left_hidden = 8;
  return c;
}

// Expects the same moves and, within tolerance, the same win/draw/loss,
// moves left and priors.
inline void ExpectSame(const EvalOutput& a, const EvalOutput& b, float tolerance) {
  ASSERT_EQ(a.num_moves, b.num_moves);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.wdl[k], b.wdl[k], tolerance);
  EXPECT_NEAR(a.moves_left, b.moves_left, tolerance * kMovesLeftScale);
  for (int i = 0; i < a.num_moves; ++i) EXPECT_NEAR(a.priors[i], b.priors[i], tolerance);
}

}  // namespace loa::testing
