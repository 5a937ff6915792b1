// Perft golden counts. Origin: docs/RULES.md, where three independent move
// generators agree on them.

#include <gtest/gtest.h>

#include "core/perft.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

TEST(Perft, StandardStartToDepth5) {
  const uint64_t kCounts[] = {1, 36, 1244, 44952, 1563208, 55963132};
  for (int depth = 0; depth <= 5; ++depth) EXPECT_EQ(Perft(Position::Start(), depth), kCounts[depth]) << depth;
}

TEST(Perft, ScrambledEggsToDepth5) {
  const uint64_t kCounts[] = {1, 32, 992, 32000, 1002260, 32396552};
  const Position eggs = Position::Start(StartKind::kScrambled);
  for (int depth = 0; depth <= 5; ++depth) EXPECT_EQ(Perft(eggs, depth), kCounts[depth]) << depth;
}

TEST(Perft, DivideSumsToPerftOnAnyThreadCount) {
  for (int threads : {1, 2, 3}) {
    uint64_t total = 0;
    const auto divide = PerftDivide(Position::Start(), 4, threads);
    EXPECT_EQ(divide.size(), 36u);
    for (const auto& [move, count] : divide) total += count;
    EXPECT_EQ(total, 1563208u) << threads << " threads";
  }
}

TEST(Perft, FinishedGameHasNoMovesAndBlockedSideHasThePass) {
  EXPECT_EQ(Perft(testing::P("8/8/8/8/8/8/ww6/b6b b"), 3), 0u);  // White is united
  EXPECT_EQ(Perft(testing::P("6wb/6ww/8/8/8/8/ww6/bw6 b"), 1), 1u);
}

}  // namespace
}  // namespace loa
