// The batched self-play driver: batching changes nothing but speed, it plays
// what the engine's search plays, and its records are consistent.

#include "mcts/selfplay_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "mcts/search.h"
#include "mcts/testing.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::HashEvaluator;

// Returns whether `target` is a position `plies` moves from pos lead to.
bool ReachableIn(const Position& pos, const Position& target, int plies) {
  if (plies == 0) return pos == target;
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves)
    if (ReachableIn(pos.Apply(m), target, plies - 1)) return true;
  return false;
}

// Self-play settings with every random feature on, small enough to be quick.
SearchParams NoisyParams() {
  SearchParams params;
  params.playouts = 48;
  params.cheap_playouts = 12;
  params.full_search_fraction = 0.5f;
  params.forced_playouts_k = 2;
  params.dirichlet_epsilon = 0.25f;
  params.temperature_start = 1.0f;
  params.temperature_end = 0.2f;
  params.temperature_halflife_plies = 10;
  return params;
}

Rules CappedRules() {
  Rules rules;
  rules.max_plies = 80;
  return rules;
}

void ExpectSameGames(const std::vector<SelfPlayGame>& a, const std::vector<SelfPlayGame>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t g = 0; g < a.size(); ++g) {
    EXPECT_EQ(a[g].index, b[g].index);
    ASSERT_EQ(a[g].game.moves(), b[g].game.moves()) << "game " << a[g].index;
    EXPECT_EQ(a[g].game.result(), b[g].game.result());
    ASSERT_EQ(a[g].moves.size(), b[g].moves.size());
    for (size_t i = 0; i < a[g].moves.size(); ++i) {
      const SearchedMove &x = a[g].moves[i], &y = b[g].moves[i];
      EXPECT_EQ(x.full_search, y.full_search);
      EXPECT_EQ(x.visits, y.visits);
      EXPECT_EQ(x.root_value, y.root_value);
      ASSERT_EQ(x.policy.size(), y.policy.size());
      for (size_t k = 0; k < x.policy.size(); ++k) {
        EXPECT_EQ(x.policy[k].move, y.policy[k].move);
        EXPECT_EQ(x.policy[k].probability, y.policy[k].probability);
      }
    }
  }
}

TEST(SelfPlayTest, BatchingDoesNotChangeTheGames) {
  const SearchParams params = NoisyParams();
  constexpr int kGames = 6;
  HashEvaluator one_evaluator;
  SelfPlayDriver one_at_a_time(&one_evaluator, params, CappedRules(), SelfPlayGames{1, 42, 0, kGames});
  const std::vector<SelfPlayGame> sequential = testing::PlayAll(one_at_a_time);
  for (int parallel : {2, 6}) {
    HashEvaluator evaluator;
    SelfPlayDriver batched(&evaluator, params, CappedRules(), SelfPlayGames{parallel, 42, 0, kGames});
    ExpectSameGames(testing::PlayAll(batched), sequential);
    EXPECT_EQ(evaluator.positions(), one_evaluator.positions());
    EXPECT_LT(evaluator.calls(), one_evaluator.calls()) << "the leaves of several games share a call";
  }
  // A game's moves depend on its index, not on the games played before it.
  HashEvaluator late_evaluator;
  SelfPlayDriver late(&late_evaluator, params, CappedRules(), SelfPlayGames{2, 42, 4, 2});
  const std::vector<SelfPlayGame> tail = testing::PlayAll(late);
  ExpectSameGames(tail, {sequential[4], sequential[5]});
}

TEST(SelfPlayTest, SeedsMakeDifferentGames) {
  HashEvaluator evaluator;
  SelfPlayDriver a(&evaluator, NoisyParams(), CappedRules(), SelfPlayGames{2, 1, 0, 2}),
      b(&evaluator, NoisyParams(), CappedRules(), SelfPlayGames{2, 2, 0, 2});
  const std::vector<SelfPlayGame> x = testing::PlayAll(a), y = testing::PlayAll(b);
  EXPECT_NE(x[0].game.moves(), y[0].game.moves());
  EXPECT_NE(x[0].game.moves(), x[1].game.moves());
}

TEST(SelfPlayTest, RandomOpeningsStartEachGameWhereItsMovesLed) {
  HashEvaluator evaluator;
  const Rules rules = CappedRules();
  SelfPlayDriver plain(&evaluator, NoisyParams(), rules, SelfPlayGames{2, 3, 0, 4}),
      opened(&evaluator, NoisyParams(), rules, SelfPlayGames{2, 3, 0, 4, /*random_opening_plies=*/2}),
      again(&evaluator, NoisyParams(), rules, SelfPlayGames{2, 3, 0, 4, 2});
  const std::vector<SelfPlayGame> x = testing::PlayAll(plain), y = testing::PlayAll(opened),
                                  z = testing::PlayAll(again);
  std::set<uint64_t> starts;
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(x[i].game.start(), rules.StartPosition());
    const Position& start = y[i].game.start();
    // Two moves on: Black to move again, off the start, a position two
    // moves reach from it.
    EXPECT_NE(start, rules.StartPosition());
    EXPECT_EQ(start.side_to_move(), kBlack);
    EXPECT_TRUE(ReachableIn(rules.StartPosition(), start, 2));
    // Searched and recorded from there on only.
    ASSERT_FALSE(y[i].moves.empty());
    EXPECT_EQ(y[i].moves[0].position, start);
    EXPECT_EQ(y[i].moves.size(), y[i].game.moves().size());
    // The game's seed draws its opening.
    EXPECT_EQ(z[i].game.start(), start);
    starts.insert(start.hash());
  }
  EXPECT_EQ(starts.size(), y.size());
}

TEST(SelfPlayTest, WithoutRandomnessTheDriverPlaysTheEnginesMoves) {
  SearchParams params;
  params.playouts = 64;
  params.dirichlet_epsilon = 0;
  params.temperature_start = params.temperature_end = 0;
  params.forced_playouts_k = 0;
  params.full_search_fraction = 1;
  HashEvaluator evaluator;
  SelfPlayDriver driver(&evaluator, params, CappedRules(), SelfPlayGames{1, 7, 0, 1});
  const SelfPlayGame played = testing::PlayAll(driver).at(0);

  Search search(&evaluator, params);
  Game game(CappedRules());
  SearchLimits limits;
  limits.playouts = params.playouts;
  limits.early_stop = false;
  for (size_t i = 0; i < played.moves.size(); ++i) {
    const SearchResult result = search.Run(game, limits);
    ASSERT_EQ(result.best_move, played.moves[i].move) << "ply " << i;
    EXPECT_EQ(result.visits, played.moves[i].visits);
    EXPECT_EQ(result.value, played.moves[i].root_value);
    game.Play(result.best_move);
  }
  EXPECT_TRUE(game.over());
}

TEST(SelfPlayTest, NewPlayoutsTakeOverFromTheNextMove) {
  SearchParams params = NoisyParams();
  HashEvaluator evaluator;
  SelfPlayDriver driver(&evaluator, params, CappedRules(), SelfPlayGames{1, 3, 0, 2});
  std::vector<SelfPlayGame> finished;
  while (finished.empty()) driver.Step(&finished);
  EXPECT_THROW(driver.set_playouts(0, 12), Error);
  driver.set_playouts(4 * params.playouts, 2 * params.cheap_playouts);
  while (!driver.done()) driver.Step(&finished);
  ASSERT_EQ(finished.size(), 2u);
  // Full searches (noised, so never on a reused tree) stop at their
  // target: the first game's the old one, the second's (from its second
  // move: its first began in the first game's last step) the new one.
  uint32_t most_before = 0, most_after = 0;
  for (const SearchedMove& m : finished[0].moves)
    if (m.full_search) most_before = std::max(most_before, m.visits);
  for (size_t i = 1; i < finished[1].moves.size(); ++i)
    if (finished[1].moves[i].full_search) most_after = std::max(most_after, finished[1].moves[i].visits);
  EXPECT_LE(most_after, uint32_t(4 * params.playouts));
  EXPECT_LE(most_before, uint32_t(params.playouts));
  EXPECT_GT(most_after, uint32_t(params.playouts));
}

TEST(SelfPlayTest, RecordsAreConsistent) {
  const SearchParams params = NoisyParams();
  HashEvaluator evaluator;
  SelfPlayDriver driver(&evaluator, params, CappedRules(), SelfPlayGames{3, 5, 0, 3});
  int full = 0, cheap = 0, surprised = 0;
  for (const SelfPlayGame& record : testing::PlayAll(driver)) {
    EXPECT_TRUE(record.game.over());
    ASSERT_EQ(record.moves.size(), record.game.moves().size());
    Position pos = record.game.start();
    for (size_t i = 0; i < record.moves.size(); ++i) {
      const SearchedMove& m = record.moves[i];
      EXPECT_EQ(m.position, pos);
      EXPECT_EQ(m.move, record.game.moves()[i]);
      double sum = 0, played_share = 0;
      for (const MoveProbability& p : m.policy) {
        EXPECT_TRUE(pos.IsLegal(p.move));
        EXPECT_GT(p.probability, 0);
        sum += p.probability;
        if (p.move == m.move) played_share = p.probability;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
      EXPECT_GT(played_share, 0) << "the move is drawn from the target";
      EXPECT_GE(m.root_value, -1);
      EXPECT_LE(m.root_value, 1);
      if (m.proven == Proven::kUnknown) {
        EXPECT_GE(m.visits, uint32_t(m.full_search ? params.playouts : params.cheap_playouts));
      }
      (m.full_search ? full : cheap)++;
      EXPECT_GE(m.surprise, 0);
      if (!m.full_search) {
        EXPECT_EQ(m.surprise, 0) << "only training targets are weighed";
      }
      surprised += m.surprise > 0.05f;
      pos = pos.Apply(m.move);
    }
  }
  EXPECT_GT(surprised, 0);
  EXPECT_GT(full, 0);
  EXPECT_GT(cheap, 0);
  EXPECT_EQ(driver.moves_played(), full + cheap);
}

TEST(SelfPlayTest, AResignCheckEndsTheGame) {
  HashEvaluator evaluator;
  SelfPlayDriver driver(&evaluator, NoisyParams(), CappedRules(), SelfPlayGames{2, 3, 0, 4});
  driver.set_resign_check([](const SelfPlayGame& g) { return g.moves.size() == size_t(5 + g.index); });
  for (const SelfPlayGame& g : testing::PlayAll(driver)) {
    EXPECT_FALSE(g.game.over());
    EXPECT_EQ(g.moves.size(), size_t(5 + g.index));
    EXPECT_EQ(g.game.ply(), int(g.moves.size()));
  }
}

}  // namespace
}  // namespace loa
