// Choices from a finished search: the engine's move, the policy target with
// KataGo's pruning, temperature sampling.

#include "mcts/root_stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::Child;

float ShareOf(const std::vector<MoveProbability>& target, Move m) {
  for (const MoveProbability& p : target)
    if (p.move == m) return p.probability;
  return 0;
}

TEST(RootStatsTest, BestMoveIsTheMostVisitedThatIsNotLost) {
  const std::vector<RootChild> children = {Child(0, 0.2f, 10, 0.1f), Child(1, 0.5f, 80, 0.3f),
                                           Child(2, 0.3f, 90, -1, Proven::kLoss, 2)};
  EXPECT_EQ(ChooseBestMove(children), children[1].move);
}

TEST(RootStatsTest, TheLowerConfidenceBoundPlaysASurerMove) {
  // The most visited move's value is low and spread; the second, with a
  // fifth of its visits, is higher and steady; the third has too few visits
  // for its bound to count, however high its value.
  std::vector<RootChild> children = {Child(0, 0.4f, 500, 0.10f), Child(1, 0.3f, 100, 0.30f), Child(2, 0.3f, 50, 0.90f)};
  children[0].q_stdev = 0.6f;
  children[1].q_stdev = 0.2f;
  children[2].q_stdev = 0.1f;
  EXPECT_EQ(ChooseBestMove(children), children[0].move);        // by visits
  EXPECT_EQ(ChooseBestMove(children, 1.0f), children[1].move);  // 0.30 - 0.02 > 0.10 - 0.027
  children[1].q_stdev = 3.0f;                                   // 0.30 - 0.30 < 0.10 - 0.027
  EXPECT_EQ(ChooseBestMove(children, 1.0f), children[0].move);
  children[2].visits = 75;  // 15% of 500: it counts now
  EXPECT_EQ(ChooseBestMove(children, 1.0f), children[2].move);
}

TEST(RootStatsTest, BestMoveIsTheShortestWin) {
  const std::vector<RootChild> children = {Child(0, 0.2f, 100, 0.1f), Child(1, 0.5f, 3, 1, Proven::kWin, 4),
                                           Child(2, 0.3f, 1, 1, Proven::kWin, 2)};
  EXPECT_EQ(ChooseBestMove(children), children[2].move);
  const std::vector<MoveProbability> target = PolicyTarget(children, SearchParams(), true);
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0].move, children[2].move);
}

TEST(RootStatsTest, WhenAllIsLostResistLongest) {
  const std::vector<RootChild> children = {Child(0, 0.5f, 10, -1, Proven::kLoss, 1),
                                           Child(1, 0.5f, 5, -1, Proven::kLoss, 5)};
  EXPECT_EQ(ChooseBestMove(children), children[1].move);
}

TEST(RootStatsTest, TargetIsTheVisitSharesWithoutPruning) {
  const std::vector<RootChild> children = {Child(0, 0.2f, 10, 0.1f), Child(1, 0.5f, 30, 0.3f), Child(2, 0.3f, 0, 0)};
  const std::vector<MoveProbability> target = PolicyTarget(children, SearchParams(), false);
  ASSERT_EQ(target.size(), 2u);
  EXPECT_FLOAT_EQ(ShareOf(target, children[0].move), 0.25f);
  EXPECT_FLOAT_EQ(ShareOf(target, children[1].move), 0.75f);
}

TEST(RootStatsTest, PruningRemovesForcedVisitsButNotTheBest) {
  // Child 1 is best; child 0 got visits only from forcing (low Q), child 2
  // from a single playout.
  SearchParams params;
  params.forced_playouts_k = 2;
  const std::vector<RootChild> children = {Child(0, 0.30f, 20, -0.6f), Child(1, 0.40f, 300, 0.4f),
                                           Child(2, 0.05f, 1, -0.2f)};
  const std::vector<MoveProbability> raw = PolicyTarget(children, params, false);
  const std::vector<MoveProbability> pruned = PolicyTarget(children, params, true);
  EXPECT_LT(ShareOf(pruned, children[0].move), ShareOf(raw, children[0].move));
  EXPECT_EQ(ShareOf(pruned, children[2].move), 0.0f);
  EXPECT_GT(ShareOf(pruned, children[1].move), ShareOf(raw, children[1].move));
  double sum = 0;
  for (const MoveProbability& p : pruned) sum += p.probability;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  // A child whose PUCT is already above the best's keeps everything.
  const std::vector<RootChild> strong = {Child(0, 0.30f, 200, 0.45f), Child(1, 0.40f, 300, 0.4f)};
  EXPECT_NEAR(ShareOf(PolicyTarget(strong, params, true), strong[0].move), 0.4f, 1e-6);
}

TEST(RootStatsTest, ProvenLossesLeaveTheTarget) {
  const std::vector<RootChild> children = {Child(0, 0.5f, 10, -1, Proven::kLoss, 1), Child(1, 0.5f, 30, 0.3f)};
  const std::vector<MoveProbability> target = PolicyTarget(children, SearchParams(), false);
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0].move, children[1].move);
}

TEST(RootStatsTest, SurpriseIsTheDivergenceOfTheTargetFromTheRawPriors) {
  std::vector<RootChild> children = {Child(0, 0.5f, 0, 0), Child(1, 0.25f, 0, 0), Child(2, 0.25f, 0, 0)};
  const std::vector<MoveProbability> same = {
      {children[0].move, 0.5f}, {children[1].move, 0.25f}, {children[2].move, 0.25f}};
  EXPECT_NEAR(PolicySurprise(same, children), 0, 1e-6);
  // All on the third move: log(1 / 0.25).
  const std::vector<MoveProbability> third = {{children[2].move, 1.0f}};
  EXPECT_NEAR(PolicySurprise(third, children), std::log(4.0), 1e-6);
  // Noise changes the searched prior, not the surprise.
  children[2].prior = 0.9f;
  EXPECT_NEAR(PolicySurprise(third, children), std::log(4.0), 1e-6);
  // Half on a move the net gave nothing: its prior is floored at 1e-6.
  children[1].raw_prior = 0;
  const std::vector<MoveProbability> half = {{children[0].move, 0.5f}, {children[1].move, 0.5f}};
  EXPECT_NEAR(PolicySurprise(half, children), 0.5 * std::log(0.5 / 0.5) + 0.5 * std::log(0.5 / 1e-6), 1e-4);
}

TEST(RootStatsTest, SamplingFollowsTheTemperature) {
  const std::vector<MoveProbability> target = {{Move(0, 8, kNorth, false), 0.7f}, {Move(1, 9, kNorth, false), 0.3f}};
  Rng rng(3);
  EXPECT_EQ(SampleMove(target, 0, rng), target[0].move);
  int first = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) first += SampleMove(target, 1, rng) == target[0].move;
  EXPECT_NEAR(double(first) / kDraws, 0.7, 0.02);
  // T = 0.5 squares the odds: 0.49 / (0.49 + 0.09).
  first = 0;
  for (int i = 0; i < kDraws; ++i) first += SampleMove(target, 0.5f, rng) == target[0].move;
  EXPECT_NEAR(double(first) / kDraws, 0.49 / 0.58, 0.02);
}

TEST(RootStatsTest, TemperatureSchedules) {
  SearchParams params;
  params.temperature_start = 1;
  params.temperature_end = 0;
  params.temperature_halflife_plies = 0;
  params.temperature_cutoff_plies = 30;
  EXPECT_EQ(MoveTemperature(params, 29), 1.0f);
  EXPECT_EQ(MoveTemperature(params, 30), 0.0f);
  params.temperature_start = 0.75f;
  params.temperature_end = 0.15f;
  params.temperature_halflife_plies = 19;
  EXPECT_FLOAT_EQ(MoveTemperature(params, 0), 0.75f);
  EXPECT_FLOAT_EQ(MoveTemperature(params, 19), 0.45f);
}

TEST(RootStatsTest, RandomGammaHasItsMean) {
  Rng rng(11);
  for (double shape : {0.3, 1.0, 4.0}) {
    double sum = 0;
    constexpr int kDraws = 20000;
    for (int i = 0; i < kDraws; ++i) sum += rng.Gamma(shape);
    EXPECT_NEAR(sum / kDraws, shape, 0.05 * shape + 0.01);
  }
}

}  // namespace
}  // namespace loa
