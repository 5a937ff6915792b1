// MCTS-Solver: forced wins found and proven, forced losses proven, with a
// mock evaluator that knows nothing; each position checked by brute force.

#include <gtest/gtest.h>

#include <vector>

#include "core/notation.h"
#include "mcts/search.h"
#include "mcts/uniform_evaluator.h"
#include "solve/testing.h"
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

// The shared cases (solve/testing.h) as the MCTS-Solver reports them.
std::vector<SolverCase> Cases() {
  std::vector<SolverCase> cases;
  for (const testing::SolverCase& c : testing::kSolverCases)
    cases.push_back({c.position, c.win ? Proven::kWin : Proven::kLoss, c.plies});
  return cases;
}

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

INSTANTIATE_TEST_SUITE_P(Positions, SolverTest, ::testing::ValuesIn(Cases()));

}  // namespace
}  // namespace loa
