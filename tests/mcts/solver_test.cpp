// MCTS-Solver: forced wins found and proven, forced losses proven, with a
// mock evaluator that knows nothing; each position checked by brute force.

#include <gtest/gtest.h>

#include "core/notation.h"
#include "mcts/search.h"
#include "mcts/uniform_evaluator.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::HashEvaluator;
using testing::SolveAfter;
using testing::SolveWithin;

struct SolverCase {
  const char* position;
  Proven result;  // for the side to move
  int plies;      // exactly: not within plies - 2
};

// Found by random playouts and classified by brute force (tests/mcts).
const SolverCase kCases[] = {
    {"7w/8/7w/8/8/b7/8/b7 b", Proven::kWin, 1},
    {"8/1w6/8/3b4/3w2w1/7w/8/6b1 b", Proven::kWin, 3},
    {"2w3ww/1w3w1w/8/1b3b2/6w1/3bw3/8/3wbb2 b", Proven::kWin, 3},
    {"8/8/3b4/8/4w3/1w2bw2/8/8 w", Proven::kWin, 3},
    {"7w/8/1w2w3/2b5/8/3b1b2/6w1/2bw2b1 b", Proven::kWin, 5},
    {"8/8/5b1w/8/2w5/7w/5wbw/4b3 b", Proven::kWin, 5},
    {"4b3/3b2bb/2b5/7b/6b1/4w2b/1w1w4/b1w3w1 b", Proven::kLoss, 2},
    {"2bb1w2/4w1w1/b1w3w1/3b4/8/8/8/8 b", Proven::kLoss, 2},
    {"8/8/8/8/2b2w2/7b/8/4w3 b", Proven::kLoss, 4},
    {"8/4w3/8/1b6/3w4/2w5/7b/4b2b b", Proven::kLoss, 4},
};

// The most playouts a proof may take with knowledge-free priors.
constexpr int kProofPlayouts = 200000;

class SolverTest : public ::testing::TestWithParam<SolverCase> {};

TEST_P(SolverTest, TheRulesCoreAgreesWithTheCase) {
  const SolverCase& c = GetParam();
  Game game(Rules(), Position::FromString(c.position));
  const int expected = c.result == Proven::kWin ? 1 : -1;
  EXPECT_EQ(SolveWithin(game, c.plies), expected);
  if (c.plies > 2) {
    EXPECT_EQ(SolveWithin(game, c.plies - 2), 0);
  }
}

TEST_P(SolverTest, SearchProvesTheResultAndPlaysTheWin) {
  const SolverCase& c = GetParam();
  const Game game(Rules(), Position::FromString(c.position));
  for (int threads : {1, 3}) {
    SearchParams params;
    params.threads = threads;
    params.leaves_per_batch = threads == 1 ? 1 : 4;
    UniformEvaluator evaluator;
    Search search(&evaluator, params);
    SearchLimits limits;
    limits.playouts = kProofPlayouts;
    limits.early_stop = false;
    const SearchResult result = search.Run(game, limits);
    SCOPED_TRACE(std::string(c.position) + " threads " + std::to_string(threads));
    ASSERT_EQ(result.proven, c.result) << "after " << result.playouts << " playouts";
    // A proof need not be the shortest (threads may prove a longer one first),
    // but never beats the truth, and its length has the right parity.
    EXPECT_GE(result.end_plies, c.plies);
    EXPECT_EQ(result.end_plies % 2, c.plies % 2);
    EXPECT_LT(result.visits, uint32_t(kProofPlayouts)) << "a proven root stops the search";
    EXPECT_FLOAT_EQ(result.value, c.result == Proven::kWin ? 1.0f : -1.0f);
    if (c.result == Proven::kWin) {
      // Brute force checks the move where it is cheap (proofs of up to 5 plies).
      if (result.end_plies <= 5) {
        EXPECT_EQ(SolveAfter(game, result.best_move, result.end_plies - 1), 1) << FormatMove(result.best_move);
      }
    } else {
      EXPECT_TRUE(game.position().IsLegal(result.best_move));
    }
  }
}

TEST_P(SolverTest, WithoutTheSolverNothingIsProvenButWinsInOneAreFound) {
  const SolverCase& c = GetParam();
  const Game game(Rules(), Position::FromString(c.position));
  SearchParams params;
  params.solver = false;
  HashEvaluator evaluator;
  Search search(&evaluator, params);
  SearchLimits limits;
  limits.playouts = 3000;
  const SearchResult result = search.Run(game, limits);
  EXPECT_EQ(result.proven, Proven::kUnknown);
  if (c.result == Proven::kWin && c.plies == 1) {
    EXPECT_EQ(SolveAfter(game, result.best_move, 0), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Positions, SolverTest, ::testing::ValuesIn(kCases));

}  // namespace
}  // namespace loa
