// Gumbel AlphaZero's root: the sequential-halving schedule, sigma of the
// completed Q, the improved policy, the root selection and the self-play
// driver that uses them.

#include "mcts/gumbel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "mcts/selfplay_driver.h"
#include "mcts/testing.h"
#include "mcts/tree.h"
#include "mcts/uniform_evaluator.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::Child;

TEST(GumbelTest, ConsideredVisitsHalveTheMovesPhaseByPhase) {
  // m = 4 over 8: one visit each, then the better two get two more each.
  EXPECT_EQ(ConsideredVisits(4, 8), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 2, 2}));
  // m = 2 over 6: three rounds of both (6 / (1 * 2) = 3 visits each).
  EXPECT_EQ(ConsideredVisits(2, 6), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2}));
  // One move: every simulation goes to it.
  EXPECT_EQ(ConsideredVisits(1, 4), (std::vector<uint32_t>{0, 1, 2, 3}));
  // m = 16 over 32 (mctx's example size): the 16 moves first, 8 of them next.
  const std::vector<uint32_t> s = ConsideredVisits(16, 32);
  ASSERT_EQ(s.size(), 32u);
  EXPECT_EQ(std::count(s.begin(), s.begin() + 16, 0u), 16);
  EXPECT_EQ(std::count(s.begin() + 16, s.begin() + 24, 1u), 8);
  EXPECT_TRUE(ConsideredVisits(3, 0).empty());
}

TEST(GumbelTest, SigmaCompletesUnvisitedMovesWithTheMixedValueAndRescales) {
  SearchParams params;  // c_visit 50, c_scale 0.1
  const std::vector<RootChild> children = {Child(0, 0.5f, 3, 0.6f), Child(1, 0.25f, 1, -0.2f),
                                           Child(2, 0.25f, 0, 0.0f)};
  const float raw = 0.1f;
  const std::vector<float> sigma = SigmaCompletedQ(children, raw, params);
  // Mixed value: (raw + 4 * (0.5 * 0.6 + 0.25 * -0.2) / 0.75) / 5.
  const float mixed = (raw + 4 * (0.5f * 0.6f + 0.25f * -0.2f) / 0.75f) / 5;
  const float scale = (50 + 3) * 0.1f;
  EXPECT_NEAR(sigma[0], scale * 1.0f, 1e-5);  // the highest Q
  EXPECT_NEAR(sigma[1], 0.0f, 1e-6);          // the lowest
  EXPECT_NEAR(sigma[2], scale * (mixed + 0.2f) / 0.8f, 1e-5);
}

TEST(GumbelTest, TheImprovedPolicyIsThePriorWithoutVisitsAndMovesTowardsTheBestQ) {
  SearchParams params;
  std::vector<RootChild> children = {Child(0, 0.6f, 0, 0), Child(1, 0.3f, 0, 0), Child(2, 0.1f, 0, 0)};
  std::vector<MoveProbability> target = GumbelPolicyTarget(children, 0.3f, params);
  ASSERT_EQ(target.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(target[i].probability, children[i].prior, 1e-6);
  // The least likely move turns out best: its share grows past its prior.
  children[0].visits = 4, children[0].q = -0.5f;
  children[2].visits = 4, children[2].q = 0.8f;
  target = GumbelPolicyTarget(children, 0.3f, params);
  double sum = 0;
  for (const MoveProbability& p : target) sum += p.probability;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_GT(target[2].probability, 0.5f);
  EXPECT_LT(target[0].probability, children[0].prior);
}

TEST(GumbelTest, SelectionTakesTheBestScoredMoveAtTheConsideredCount) {
  const std::vector<RootChild> children = {Child(0, 0.25f, 1, 0), Child(1, 0.25f, 0, 0), Child(2, 0.25f, 0, 0),
                                           Child(3, 0.25f, 0, 0, Proven::kLoss)};
  const std::vector<float> sigma(4, 0.0f), gumbel = {5.0f, 0.5f, 1.0f, 9.0f};
  // Considered count 0: moves 1 and 2 qualify (3 is a proven loss); 2 scores higher.
  EXPECT_EQ(GumbelSelect(children, {1, 0, 0, 0}, gumbel, sigma, 0), 2);
  // Count 1: only move 0.
  EXPECT_EQ(GumbelSelect(children, {1, 0, 0, 0}, gumbel, sigma, 1), 0);
  // No move at count 7: the least visited, best scored.
  EXPECT_EQ(GumbelSelect(children, {1, 0, 0, 0}, gumbel, sigma, 7), 2);
  // A proven win is taken at once.
  std::vector<RootChild> winning = children;
  winning[1].proven = Proven::kWin;
  EXPECT_EQ(GumbelSelect(winning, {1, 0, 0, 0}, gumbel, sigma, 0), 1);
}

TEST(GumbelTest, TheMoveIsTheBestScoredOfTheMostVisited) {
  SearchParams params;
  const std::vector<RootChild> children = {Child(0, 0.4f, 3, 0.1f), Child(1, 0.4f, 3, 0.2f), Child(2, 0.2f, 1, 0.9f)};
  // Equal gumbels: the same visits, so the higher Q (sigma) decides.
  EXPECT_EQ(GumbelChooseMove(children, {0, 0, 0}, 0, params), children[1].move);
  // A large draw for move 0 outweighs sigma; move 2 is not among the most visited.
  EXPECT_EQ(GumbelChooseMove(children, {9, 0, 50}, 0, params), children[0].move);
}

TEST(GumbelTest, ATreeSearchFollowsSequentialHalving) {
  TreeScratch scratch;
  SearchParams params;
  params.gumbel_considered = 4;
  SearchTree tree(params);
  Rng rng(7);
  tree.SetRoot(Game(), false);
  tree.BeginSearch(false, false, &rng);
  tree.UseGumbelRoot(8);
  UniformEvaluator evaluator;
  Leaf leaf;
  EvalOutput out;
  while (!tree.Done(9)) {
    bool collided = false;
    ASSERT_EQ(tree.Gather(1, 9, &leaf, &collided, scratch), 1);
    evaluator.Evaluate(&leaf.position, 1, &out);
    tree.ExpandAndBackup(leaf, out);
  }
  ASSERT_EQ(tree.root_gumbel().size(), 36u);  // a draw per legal move of the start
  std::vector<uint32_t> visits;
  for (const RootChild& c : tree.RootChildren()) visits.push_back(c.visits);
  std::sort(visits.rbegin(), visits.rend());
  EXPECT_EQ(std::vector<uint32_t>(visits.begin(), visits.begin() + 5), (std::vector<uint32_t>{3, 3, 1, 1, 0}));
  // The four visited moves are the four best Gumbel draws (uniform priors).
  std::vector<float> g = tree.root_gumbel();
  const std::vector<RootChild> children = tree.RootChildren();
  std::vector<size_t> order(g.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return g[a] > g[b]; });
  for (size_t k = 0; k < order.size(); ++k) EXPECT_EQ(children[order[k]].visits > 0, k < 4) << k;
}

TEST(GumbelTest, SelfPlayWithAGumbelRootIsDeterministicAndItsTargetsAreDistributions) {
  SearchParams params;
  params.root = "gumbel";
  params.playouts = 24;
  params.cheap_playouts = 6;
  params.full_search_fraction = 0.5f;
  params.gumbel_considered = 8;
  Rules rules;
  rules.max_plies = 60;
  testing::HashEvaluator evaluator;
  auto play = [&] {
    SelfPlayDriver driver(&evaluator, params, rules, SelfPlayGames{3, 11, 0, 3});
    return testing::PlayAll(driver);
  };
  const std::vector<SelfPlayGame> a = play(), b = play();
  ASSERT_EQ(a.size(), 3u);
  int distinct_first_moves = 0;
  for (size_t g = 0; g < a.size(); ++g) {
    EXPECT_EQ(a[g].game.moves(), b[g].game.moves());
    distinct_first_moves += a[g].game.moves()[0] != a[0].game.moves()[0];
    Game replay(rules);
    for (const SearchedMove& m : a[g].moves) {
      ASSERT_TRUE(replay.position().IsLegal(m.move));
      double sum = 0;
      for (const MoveProbability& p : m.policy) sum += p.probability;
      EXPECT_NEAR(sum, 1.0, 1e-4);
      if (m.full_search && m.proven == Proven::kUnknown) {
        EXPECT_EQ(int(m.policy.size()), replay.position().CountMoves());
      }
      replay.Play(m.move);
    }
  }
  EXPECT_GT(distinct_first_moves, 0);  // the Gumbel draws vary the openings without noise or temperature
}

}  // namespace
}  // namespace loa
