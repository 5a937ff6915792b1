// OneDnnBindings: what a net's runs bind (the arguments that hold its
// weights) lives in the evaluator's workspaces and dies with the net.

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "core/position.h"
#include "mcts/evaluator.h"
#include "net/cpu_evaluator.h"
#include "net/onednn_trunk.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

// Nets loaded and dropped, each used by several threads at once: what their
// runs bound dies with them (OneDnnBindings in the evaluator's workspaces),
// so that a process that loads net after net (loaz serve) stays flat.
TEST(OneDnnBindingsTest, WhatANetBoundDiesWithIt) {
  const int64_t before = OneDnnBindings::LiveEntries();
  int64_t one_net = 0;
  std::vector<Position> positions;
  Position p = Position::Start();
  for (int i = 0; i < 16; ++i) positions.push_back(p);
  for (int round = 0; round < 50; ++round) {
    for (Precision precision : {Precision::kFp32, Precision::kInt8}) {
      CpuEvaluator evaluator(testing::RandomExport(testing::SmallConfig(1, 8, 0, true), 100 + round), 2, precision);
      std::vector<std::thread> threads;
      for (int t = 0; t < 3; ++t)
        threads.emplace_back([&] {
          std::vector<EvalOutput> out(positions.size());
          evaluator.Evaluate(positions.data(), int(positions.size()), out.data());
          evaluator.Evaluate(positions.data(), 1, out.data());
        });
      for (std::thread& t : threads) t.join();
      one_net = std::max(one_net, OneDnnBindings::LiveEntries() - before);
    }
  }
  EXPECT_GT(one_net, 0);  // the runs bound something
  EXPECT_LE(OneDnnBindings::LiveEntries() - before, 0) << "a net of " << one_net << " entries";
}

}  // namespace
}  // namespace loa
