// The df-pn solver: every forced win and loss of the solver cases proven with
// the right proof, a draw, the move cap and the limits respected, with one
// thread and several, and with a table too small to hold the search.

#include "solve/dfpn.h"

#include <gtest/gtest.h>

#include "core/notation.h"
#include "core/random_play.h"
#include "core/testing.h"
#include "solve/testing.h"
#include "tests/mcts/test_util.h"

namespace loa::solve {
namespace {

using loa::testing::kSolverCases;
using loa::testing::SolveAfter;
using loa::testing::SolverCase;
using loa::testing::SolveWithin;

class DfpnTest : public ::testing::TestWithParam<SolverCase> {};

TEST_P(DfpnTest, ProvesTheCaseAndItsProofIsSound) {
  const SolverCase& c = GetParam();
  const Game game(Rules(), Position::FromString(c.position));
  for (int threads : {1, 3}) {
    SCOPED_TRACE(std::string(c.position) + " threads " + std::to_string(threads));
    Solver solver(16);
    SolveLimits limits;
    limits.threads = threads;
    const SolveResult r = solver.Solve(game, limits);
    ASSERT_EQ(r.outcome, c.win ? Outcome::kWin : Outcome::kLoss);
    // A proof's longest line is never shorter than the forced result and has its parity.
    EXPECT_GE(r.proof_plies, c.plies);
    EXPECT_EQ(r.proof_plies % 2, c.plies % 2);
    ASSERT_FALSE(r.line.empty());
    EXPECT_EQ(r.best_move, r.line.front());
    EXPECT_LE(int(r.line.size()), r.proof_plies);
    EXPECT_GE(r.proof_size, int64_t(r.line.size()));
    // The line is legal and ends the game for the winner.
    Game played = game;
    for (Move m : r.line) {
      ASSERT_FALSE(played.over());
      ASSERT_TRUE(played.position().IsLegal(m)) << FormatMove(m);
      played.Play(m);
    }
    ASSERT_TRUE(played.over());
    EXPECT_EQ(played.result(),
              WinFor(c.win ? game.position().side_to_move() : Opponent(game.position().side_to_move())));
    // Brute force checks the first move where it is cheap.
    if (c.win && r.proof_plies <= 5) {
      EXPECT_EQ(SolveAfter(game, r.best_move, r.proof_plies - 1), 1);
    }
    EXPECT_GT(r.nodes, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Positions, DfpnTest, ::testing::ValuesIn(kSolverCases));

// Brute force to 3 plies and df-pn agree wherever brute force knows: a win
// or a loss within 3 plies is proven so, and a proof of at most 3 plies is
// one brute force finds; on boards of every size.
TEST(DfpnTest, AgreesWithBruteForceOnRandomPositions) {
  int checked = 0, known = 0;
  for (int n : {6, 7, 8}) {
    Rules rules;
    rules.size = n;
    for (const Game& played : testing::RandomGames(40, 20 + n, rules, 20, 100, true)) {
      Game game(rules, played.position());  // without the history: brute force sees none either
      const Position& pos = game.position();
      solve::Solver solver(4);
      SolveLimits limits;
      limits.nodes = 20000;
      const SolveResult r = solver.Solve(game, limits);
      const int brute = SolveWithin(game, 3);
      ++checked;
      if (brute != 0) {
        ++known;
        EXPECT_EQ(r.outcome, brute > 0 ? Outcome::kWin : Outcome::kLoss) << pos.ToString();
      }
      if (r.outcome == Outcome::kWin && r.proof_plies <= 3) {
        EXPECT_EQ(brute, 1) << pos.ToString();
      }
      if (r.outcome == Outcome::kLoss && r.proof_plies <= 2) {
        EXPECT_EQ(brute, -1) << pos.ToString();
      }
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GE(known, 10);  // 19 of the 120 with these seeds
}

TEST(DfpnTest, ATableTooSmallForTheSearchStillProves) {
  Solver solver(1);
  EXPECT_GT(solver.capacity(), 0);
  for (const SolverCase& c : kSolverCases) {
    const SolveResult r = solver.Solve(Game(Rules(), Position::FromString(c.position)), SolveLimits());
    EXPECT_EQ(r.outcome, c.win ? Outcome::kWin : Outcome::kLoss) << c.position;
  }
  EXPECT_LE(solver.used(), solver.capacity());
  solver.Clear();
  EXPECT_EQ(solver.used(), 0);
}

TEST(DfpnTest, AWinLongerThanTheCapLeavesIsNotClaimed) {
  const SolverCase& c = kSolverCases[4];  // a win in 5
  ASSERT_EQ(c.plies, 5);
  Rules rules;
  const int proof = Solver(16).Solve(Game(rules, Position::FromString(c.position)), SolveLimits()).proof_plies;
  ASSERT_GE(proof, 5);
  rules.max_plies = 4;  // the game is drawn after 4 more plies: no win at all
  EXPECT_NE(Solver(16).Solve(Game(rules, Position::FromString(c.position)), SolveLimits()).outcome, Outcome::kWin);
  rules.max_plies = proof - 1;  // a win may exist, but not this proof's
  EXPECT_NE(Solver(16).Solve(Game(rules, Position::FromString(c.position)), SolveLimits()).outcome, Outcome::kWin);
  rules.max_plies = proof;
  EXPECT_EQ(Solver(16).Solve(Game(rules, Position::FromString(c.position)), SolveLimits()).outcome, Outcome::kWin);
}

TEST(DfpnTest, TheLimitsStopItUnknown) {
  Solver solver(16);
  SolveLimits limits;
  limits.nodes = 2000;
  const SolveResult r = solver.Solve(Game(), limits);  // the 8x8 start: far beyond 2,000 positions
  EXPECT_EQ(r.outcome, Outcome::kUnknown);
  EXPECT_TRUE(r.best_move.is_null());
  // The searching threads count against the limit themselves: it is kept
  // to the node, one more for each other thread at most.
  EXPECT_GE(r.nodes, 2000);
  EXPECT_LE(r.nodes, 2001);
  limits.threads = 2;
  EXPECT_LE(solver.Solve(Game(), limits).nodes, 2002);
  limits.threads = 1;
  std::atomic<bool> stop{true};
  limits = SolveLimits();
  limits.stop = &stop;
  EXPECT_EQ(solver.Solve(Game(), limits).outcome, Outcome::kUnknown);
}

TEST(DfpnTest, AFinishedGameIsItsVerdict) {
  Game game(Rules(), Position::FromString("7w/8/7w/8/8/b7/8/b7 b"));
  game.Play(ParseMove("a3-b2", game.position()));
  ASSERT_TRUE(game.over());
  Solver solver(1);
  EXPECT_EQ(solver.Solve(game, SolveLimits()).outcome, Outcome::kLoss);  // White to move, Black united
}

}  // namespace
}  // namespace loa::solve
