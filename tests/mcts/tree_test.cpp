// The search tree: expansion, value signs, terminal and repetition judgement,
// tree reuse, root noise, the arena.

#include "mcts/tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "core/notation.h"
#include "mcts/puct.h"
#include "mcts/uniform_evaluator.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

using testing::HashEvaluator;
using testing::ValueEvaluator;

// Runs playouts one leaf at a time until the root has `visits` visits.
void RunPlayouts(SearchTree& tree, Evaluator& evaluator, uint32_t visits) {
  TreeScratch scratch;
  Leaf leaf;
  EvalOutput out;
  while (!tree.Done(visits)) {
    bool collided = false;
    if (tree.Gather(1, visits, &leaf, &collided, scratch) == 0) break;
    evaluator.Evaluate(&leaf.position, 1, &out);
    tree.ExpandAndBackup(leaf, out);
  }
}

Game PlayMoves(const std::vector<const char*>& moves, const Rules& rules = Rules()) {
  Game game(rules);
  for (const char* text : moves) game.Play(ParseMove(text, game.position()));
  return game;
}

// Runs one playout of a fresh search of game in tree; returns the
// evaluator's output for the root.
EvalOutput ExpandRoot(SearchTree& tree, const Game& game, Evaluator& evaluator) {
  tree.SetRoot(game, false);
  tree.BeginSearch(false, false, nullptr);
  RunPlayouts(tree, evaluator, 1);
  EvalOutput root;
  evaluator.Evaluate(&game.position(), 1, &root);
  return root;
}

TEST(TreeTest, FirstPlayoutExpandsTheRootWithTheEvaluatorsPriors) {
  SearchParams params;
  SearchTree tree(params);
  Game game;
  HashEvaluator evaluator;
  const EvalOutput expected = ExpandRoot(tree, game, evaluator);
  EXPECT_EQ(tree.root_visits(), 1u);
  MoveList moves;
  game.position().GenerateMoves(moves);
  const std::vector<RootChild> children = tree.RootChildren();
  ASSERT_EQ(int(children.size()), moves.size());
  for (int i = 0; i < moves.size(); ++i) {
    EXPECT_EQ(children[i].move, moves[i]);
    EXPECT_FLOAT_EQ(children[i].prior, expected.priors[i]);
    EXPECT_EQ(children[i].visits, 0u);
  }
  EXPECT_FLOAT_EQ(tree.RootValue(), expected.Value());
}

TEST(TreeTest, APolicyTemperatureFlattensThePriorsOfEveryExpansion) {
  const float priors[3] = {0.64f, 0.32f, 0.04f};
  float out[3];
  TemperPriors(priors, 3, 2.0f, out);  // square roots 0.8, 0.566, 0.2 over 1.566
  EXPECT_NEAR(out[0], 0.8f / 1.5657f, 1e-4);
  EXPECT_NEAR(out[2], 0.2f / 1.5657f, 1e-4);
  TemperPriors(priors, 3, 0.5f, out);  // squares sharpen: 0.4096 of 0.5136
  EXPECT_NEAR(out[0], 0.4096f / 0.5136f, 1e-4);
  const float zeros[2] = {0, 0};
  TemperPriors(zeros, 2, 2.0f, out);
  EXPECT_EQ(out[0], 0.0f);

  SearchParams params;
  params.policy_temperature = 1.5f;
  SearchTree tree(params);
  HashEvaluator evaluator;
  const EvalOutput raw = ExpandRoot(tree, Game(), evaluator);
  float expected[kMaxMoves];
  TemperPriors(raw.priors, raw.num_moves, 1.5f, expected);
  const std::vector<RootChild> children = tree.RootChildren();
  ASSERT_EQ(int(children.size()), raw.num_moves);
  float spread_raw = 0, spread_tempered = 0;
  for (int i = 0; i < raw.num_moves; ++i) {
    EXPECT_FLOAT_EQ(children[i].prior, expected[i]);
    spread_raw = std::max(spread_raw, raw.priors[i]);
    spread_tempered = std::max(spread_tempered, children[i].prior);
  }
  EXPECT_LT(spread_tempered, spread_raw);  // the favourite gives up prior
}

TEST(TreeTest, VisitsGoToTheMoveTheEvaluatorLikes) {
  // The evaluator likes for Black any position where White has lost a piece
  // (lasting: pieces never return). Black has one capture; it must draw the
  // visits, and its value must come back with Black's sign.
  const Position pos = Position::FromString("b1bb2b1/b4w2/w5bw/ww6/2b4w/w4w1w/wwb4w/1bb1b1b1 b");
  ValueEvaluator evaluator([](const Position& p) {
    const float black = PopCount(p.pieces(kWhite)) < 12 ? 0.8f : 0.0f;
    return p.side_to_move() == kBlack ? black : -black;
  });
  SearchParams params;
  SearchTree tree(params);
  tree.SetRoot(Game(Rules(), pos), false);
  tree.BeginSearch(false, false, nullptr);
  RunPlayouts(tree, evaluator, 400);
  const Move capture = ParseMove("c8xa6", pos);
  const std::vector<RootChild> children = tree.RootChildren();
  EXPECT_EQ(ChooseBestMove(children), capture);
  for (const RootChild& c : children) {
    if (c.move != capture) continue;
    EXPECT_GT(c.visits, 200u);
    EXPECT_GT(c.q, 0.7f);
  }
  EXPECT_GT(tree.RootValue(), 0.5f);
}

TEST(TreeTest, StdevExplorationScaleFollowsTheSpreadOfValues) {
  // Too few visits: the prior alone, no scaling.
  EXPECT_DOUBLE_EQ(StdevExplorationScale(0.85, 1, 0.5, 0.25), 1.0);
  // Many visits of one value: the spread shrinks to nothing, so does exploration.
  EXPECT_LT(StdevExplorationScale(0.85, 1000, 0.2, 0.04), 0.2);
  // Values of +-1: a spread of 1, 2.5 times the prior's.
  EXPECT_NEAR(StdevExplorationScale(0.85, 1000, 0, 1), 1 + 0.85 * (1 / 0.4 - 1), 0.01);
  // A spread equal to the prior's: unchanged.
  EXPECT_NEAR(StdevExplorationScale(0.85, 1000, 0, 0.16), 1.0, 0.01);
  EXPECT_DOUBLE_EQ(StdevExplorationScale(0, 1000, 0, 1), 1.0);
}

TEST(TreeTest, ValuesThatAgreeExploreLessWithTheStdevScale) {
  // Every position is worth 0.1 to its mover, so the values below the root
  // never spread: with the scale on, exploration shrinks and the visits
  // gather on fewer moves than without it.
  ValueEvaluator evaluator([](const Position&) { return 0.1f; });
  const auto most_visits = [&](float scale) {
    SearchParams params;
    params.cpuct_stdev_scale = scale;
    SearchTree tree(params);
    tree.SetRoot(Game(), false);
    tree.BeginSearch(false, false, nullptr);
    RunPlayouts(tree, evaluator, 600);
    uint32_t most = 0;
    for (const RootChild& c : tree.RootChildren()) most = std::max(most, c.visits);
    return most;
  };
  EXPECT_GT(most_visits(0.85f), most_visits(0) + 10);
}

TEST(TreeTest, VisitsGoToTheWinningMoveWithoutTheSolver) {
  // Black wins at once by uniting (a3-b2, the only win); the solver is off,
  // yet terminal values are exact and the visits find the win.
  const Position pos = Position::FromString("7w/8/7w/8/8/b7/8/b7 b");
  Game game(Rules(), pos);
  SearchParams params;
  params.solver = false;
  SearchTree tree(params);
  tree.SetRoot(game, false);
  tree.BeginSearch(false, false, nullptr);
  UniformEvaluator evaluator;
  RunPlayouts(tree, evaluator, 300);
  EXPECT_EQ(tree.RootProven(), Proven::kUnknown);
  const Move best = ChooseBestMove(tree.RootChildren());
  game.Play(best);
  ASSERT_TRUE(game.over()) << FormatMove(best);
  EXPECT_EQ(game.result(), Result::kBlackWins);
}

TEST(TreeTest, AThirdOccurrenceAlongGameAndPathIsADraw) {
  // c8-c6 h3-f3 c6-c8 f3-h3 returns to the start (its 2nd occurrence).
  const std::vector<const char*> cycle = {"c8-c6", "h3-f3", "c6-c8", "f3-h3", "c8-c6"};
  Game game = PlayMoves(cycle);
  SearchParams params;
  SearchTree tree(params);
  tree.SetRoot(game, true);
  tree.BeginSearch(false, false, nullptr);
  UniformEvaluator evaluator;  // even priors: every grandchild gets visits
  RunPlayouts(tree, evaluator, 20000);
  // h3-f3 c6-c8 f3-h3 would reach the start a third time: the tree must know
  // it at depth 3 from the path alone. Walk there by reusing the tree.
  for (const char* text : {"h3-f3", "c6-c8"}) game.Play(ParseMove(text, game.position()));
  tree.SetRoot(game, true);
  tree.BeginSearch(false, false, nullptr);
  EXPECT_GT(tree.root_visits(), 0u) << "the subtree was not kept";
  const Move back = ParseMove("f3-h3", game.position());
  bool seen = false;
  for (const RootChild& c : tree.RootChildren()) {
    if (c.move != back) continue;
    seen = true;
    EXPECT_EQ(c.proven, Proven::kDraw);
  }
  EXPECT_TRUE(seen);
  // The rules core agrees.
  game.Play(back);
  EXPECT_EQ(game.reason(), Reason::kRepetition);
}

TEST(TreeTest, ASecondOccurrenceIsNoDraw) {
  Game game = PlayMoves({"c8-c6", "h3-f3", "c6-c8"});
  SearchParams params;
  SearchTree tree(params);
  tree.SetRoot(game, false);
  tree.BeginSearch(false, false, nullptr);
  UniformEvaluator evaluator;
  RunPlayouts(tree, evaluator, 2);
  const Move back = ParseMove("f3-h3", game.position());
  for (const RootChild& c : tree.RootChildren())
    if (c.move == back) {
      EXPECT_EQ(c.proven, Proven::kUnknown);
    }
}

TEST(TreeTest, BothUnitedFollowsTheSimultaneousRule) {
  // White has exactly one move that unites both sides, and none that unites
  // White alone.
  const Position pos = Position::FromString("8/8/3b4/8/4w3/1w2bw2/8/8 w");
  for (Simultaneous rule : {Simultaneous::kDraw, Simultaneous::kMover}) {
    Rules rules;
    rules.simultaneous = rule;
    Game game(rules, pos);
    SearchParams params;
    params.solver = false;
    SearchTree tree(params);
    tree.SetRoot(game, false);
    tree.BeginSearch(false, false, nullptr);
    UniformEvaluator evaluator;
    RunPlayouts(tree, evaluator, 1);
    int both = 0;
    for (const RootChild& c : tree.RootChildren()) {
      const Verdict v = UnitedVerdict(pos.Apply(c.move), kWhite, rule);
      if (v.reason != Reason::kBothUnited) {
        EXPECT_EQ(c.proven, Proven::kUnknown);
        continue;
      }
      ++both;
      EXPECT_EQ(c.proven, rule == Simultaneous::kDraw ? Proven::kDraw : Proven::kWin);
    }
    EXPECT_EQ(both, 1);
  }
}

TEST(TreeTest, TheMoveCapEndsTheTree) {
  Rules rules;
  rules.max_plies = 2;
  Game game(rules);
  game.Play(ParseMove("c8-c6", game.position()));
  SearchParams params;
  SearchTree tree(params);
  tree.SetRoot(game, false);
  tree.BeginSearch(false, false, nullptr);
  UniformEvaluator evaluator;
  RunPlayouts(tree, evaluator, 50);
  // Every reply reaches ply 2, the cap: a draw, and the root is proven so.
  EXPECT_EQ(tree.RootProven(), Proven::kDraw);
  for (const RootChild& c : tree.RootChildren()) EXPECT_EQ(c.proven, Proven::kDraw);
}

TEST(TreeTest, ReuseKeepsTheSubtreeOfTheMovePlayed) {
  SearchParams params;
  SearchTree tree(params);
  Game game;
  tree.SetRoot(game, true);
  tree.BeginSearch(false, false, nullptr);
  HashEvaluator evaluator;
  RunPlayouts(tree, evaluator, 500);
  const std::vector<RootChild> before = tree.RootChildren();
  const Move best = ChooseBestMove(before);
  uint32_t child_visits = 0;
  for (const RootChild& c : before)
    if (c.move == best) child_visits = c.visits;
  game.Play(best);
  tree.SetRoot(game, true);
  EXPECT_EQ(tree.root_visits(), child_visits);
  // Searching on from the reused tree equals searching the kept part anew
  // in count: the visit target includes the reused visits.
  RunPlayouts(tree, evaluator, child_visits + 100);
  EXPECT_EQ(tree.root_visits(), child_visits + 100);
  // Without reuse, or after another game's moves, it starts afresh.
  tree.SetRoot(game, false);
  EXPECT_EQ(tree.root_visits(), 0u);
  Game other = PlayMoves({"b1-b3"});
  tree.SetRoot(other, true);
  EXPECT_EQ(tree.root_visits(), 0u);
}

TEST(TreeTest, NoiseChangesThePriorsReproducibly) {
  SearchParams params;
  const Game game;
  auto noised_priors = [&](uint64_t seed) {
    SearchTree tree(params);
    tree.SetRoot(game, false);
    Rng rng(seed);
    tree.BeginSearch(true, false, &rng);
    UniformEvaluator evaluator;
    RunPlayouts(tree, evaluator, 1);
    std::vector<float> priors;
    for (const RootChild& c : tree.RootChildren()) priors.push_back(c.prior);
    return priors;
  };
  const std::vector<float> a = noised_priors(5), b = noised_priors(5), c = noised_priors(6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum = 0;
  bool varied = false;
  for (float p : a) {
    sum += p;
    varied |= std::fabs(p - 1.0f / a.size()) > 1e-3f;
  }
  EXPECT_NEAR(sum, 1.0, 1e-4);
  EXPECT_TRUE(varied);
}

TEST(TreeTest, TheRootKeepsTheNetsPriorsBeforeTheNoise) {
  SearchParams params;
  SearchTree tree(params);
  const Game game;
  tree.SetRoot(game, false);
  Rng rng(5);
  tree.BeginSearch(true, false, &rng);
  UniformEvaluator evaluator;
  RunPlayouts(tree, evaluator, 1);
  const std::vector<RootChild> noised = tree.RootChildren();
  bool differs = false;
  for (const RootChild& c : noised) {
    EXPECT_FLOAT_EQ(c.raw_prior, 1.0f / noised.size());
    differs |= c.prior != c.raw_prior;
  }
  EXPECT_TRUE(differs);
  // A fresh search without noise has no other priors.
  tree.SetRoot(game, false);
  tree.BeginSearch(false, false, &rng);
  RunPlayouts(tree, evaluator, 1);
  for (const RootChild& c : tree.RootChildren()) EXPECT_EQ(c.raw_prior, c.prior);
}

TEST(TreeTest, ArenaBlocksNeverStraddleChunks) {
  NodeArena arena;
  arena.Allocate(1);
  for (int i = 0; i < 200; ++i) {
    const int n = 1 + i % kMaxMoves;
    const uint32_t first = arena.Allocate(n);
    EXPECT_EQ(first >> NodeArena::kChunkBits, (first + n - 1) >> NodeArena::kChunkBits);
    arena[first + n - 1].visits = 7;
    EXPECT_EQ(arena[first + n - 1].visits, 7u);
  }
  arena.Clear();
  EXPECT_EQ(arena.Allocate(3), 0u);
  EXPECT_EQ(arena[2].visits, 0u);
}

TEST(TreeTest, ANodesStatisticsLockKeepsEveryVisitAndItsCount) {
  // Threads each start playouts through one node (in-flight count up, no
  // lock) and back them up under its lock (visit added, count down in the
  // unlock): no visit is lost, the count comes back to zero, and the lock
  // bit never shows in it.
  Node node;
  constexpr int kThreads = 4, kVisits = 20000;
  std::atomic<bool> bad_count{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kVisits; ++i) {
        node.in_flight.fetch_add(1, std::memory_order_relaxed);
        if (node.n_in_flight() > kThreads) bad_count = true;
        node.LockStats();
        node.AddVisit(t % 2 ? 1.0f : -1.0f, 0.5f);
        node.UnlockStatsAndLand();
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(node.n(), uint32_t(kThreads * kVisits));
  EXPECT_EQ(node.n_in_flight(), 0u);
  EXPECT_EQ(node.in_flight.load(), 0);
  EXPECT_FALSE(bad_count.load());
  EXPECT_NEAR(node.value(), 0.0f, 1e-2f);  // as many +1 as -1
  EXPECT_NEAR(node.draw(), 0.5f, 1e-4f);
}

TEST(TreeTest, ArenaClaimsThenMakesFreshNodes) {
  // A claim moves the arena on (the next block lies past it) and Fresh
  // makes default nodes, also where an earlier tree left statistics.
  NodeArena arena;
  const uint32_t first = arena.Claim(5);
  EXPECT_EQ(arena.size(), first + 5);
  EXPECT_EQ(arena.Claim(2), first + 5);
  arena.Fresh(first, 7);
  for (uint32_t i = first; i < first + 7; ++i) {
    arena[i].visits = 3;
    arena[i].q = 0.5f;
    arena[i].state = Node::kExpanded;
  }
  arena.Clear();
  const uint32_t again = arena.Claim(7);
  ASSERT_EQ(again, first);
  arena.Fresh(again, 7);
  for (uint32_t i = again; i < again + 7; ++i) {
    EXPECT_EQ(arena[i].n(), 0u);
    EXPECT_EQ(arena[i].value(), 0.0f);
    EXPECT_EQ(arena[i].current_state(), Node::kLeaf);
  }
}

TEST(TreeTest, VirtualLossSpreadsLeavesOfOneBatch) {
  TreeScratch scratch;
  SearchParams params;
  SearchTree tree(params);
  tree.SetRoot(Game(), false);
  tree.BeginSearch(false, false, nullptr);
  UniformEvaluator evaluator;
  RunPlayouts(tree, evaluator, 1);
  std::vector<Leaf> leaves(8);
  bool collided = false;
  const int count = tree.Gather(8, 100, leaves.data(), &collided, scratch);
  ASSERT_EQ(count, 8);
  EXPECT_FALSE(collided);
  EXPECT_EQ(tree.root_in_flight(), 8u);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < i; ++j) EXPECT_NE(leaves[i].position, leaves[j].position);
  std::vector<EvalOutput> out(count);
  std::vector<Position> positions;
  for (const Leaf& l : leaves) positions.push_back(l.position);
  evaluator.Evaluate(positions.data(), count, out.data());
  for (int i = 0; i < count; ++i) tree.ExpandAndBackup(leaves[i], out[i]);
  EXPECT_EQ(tree.root_in_flight(), 0u);
  EXPECT_EQ(tree.root_visits(), 9u);
}

// Gathers a batch of up to `batch` leaves and backs it up as the engine's
// threads do (one call for the batch); returns the leaves gathered.
int RunBatch(SearchTree& tree, Evaluator& evaluator, uint32_t visits, int batch) {
  TreeScratch scratch;
  std::vector<Leaf> leaves(static_cast<size_t>(batch));
  bool collided = false;
  const int count = tree.Gather(batch, visits, leaves.data(), &collided, scratch);
  std::vector<Position> positions;
  for (int i = 0; i < count; ++i) positions.push_back(leaves[size_t(i)].position);
  std::vector<EvalOutput> out(static_cast<size_t>(count));
  if (count > 0) evaluator.Evaluate(positions.data(), count, out.data());
  tree.ExpandAndBackup(leaves.data(), out.data(), count, scratch);
  return count;
}

// A tree grown leaf by leaf to `visits` from the start.
void Grow(SearchTree& tree, Evaluator& evaluator, uint32_t visits) {
  tree.SetRoot(Game(), false);
  tree.BeginSearch(false, false, nullptr);
  RunPlayouts(tree, evaluator, visits);
}

TEST(TreeTest, MultiGatherTakesTheLeavesOfLeafByLeafSelection) {
  TreeScratch scratch;
  // Without collisions or proven nodes on the way, sharing a batch's
  // playouts among children, each share counted in flight for the next,
  // picks what one descent a leaf picks.
  SearchParams by_leaf, multi;
  multi.multi_gather = true;
  for (uint32_t grown : {1u, 60u, 400u}) {
    SearchTree a(by_leaf), b(multi);
    HashEvaluator evaluator;
    Grow(a, evaluator, grown);
    Grow(b, evaluator, grown);
    std::vector<Leaf> leaves_a(8), leaves_b(8);
    bool collided_a = true, collided_b = true;
    const int count_a = a.Gather(8, 1000, leaves_a.data(), &collided_a, scratch);
    const int count_b = b.Gather(8, 1000, leaves_b.data(), &collided_b, scratch);
    ASSERT_EQ(count_a, 8) << grown;
    ASSERT_FALSE(collided_a);
    EXPECT_EQ(count_b, 8);
    EXPECT_FALSE(collided_b);
    EXPECT_EQ(b.root_in_flight(), 8u);
    std::vector<uint64_t> hashes_a, hashes_b;
    for (const Leaf& l : leaves_a) hashes_a.push_back(l.position.hash());
    for (const Leaf& l : leaves_b) {
      hashes_b.push_back(l.position.hash());
      // Each leaf's path leads from the root to its position.
      ASSERT_EQ(l.path.size(), l.hashes.size());
      ASSERT_GE(l.path.size(), 2u);
      EXPECT_EQ(l.path.front(), 0u);
      EXPECT_EQ(l.hashes.front(), b.root_position().hash());
      EXPECT_EQ(l.hashes.back(), l.position.hash());
    }
    std::sort(hashes_a.begin(), hashes_a.end());
    std::sort(hashes_b.begin(), hashes_b.end());
    EXPECT_EQ(hashes_a, hashes_b) << grown;
    // Backed up, the two trees hold the same visits.
    std::vector<EvalOutput> out(8);
    for (auto* tree_leaves : {&leaves_a, &leaves_b}) {
      std::vector<Position> positions;
      for (const Leaf& l : *tree_leaves) positions.push_back(l.position);
      evaluator.Evaluate(positions.data(), 8, out.data());
      (tree_leaves == &leaves_a ? a : b).ExpandAndBackup(tree_leaves->data(), out.data(), 8, scratch);
    }
    EXPECT_EQ(a.root_visits(), grown + 8);
    EXPECT_EQ(b.root_visits(), grown + 8);
    EXPECT_EQ(b.root_in_flight(), 0u);
    const std::vector<RootChild> ca = a.RootChildren(), cb = b.RootChildren();
    ASSERT_EQ(ca.size(), cb.size());
    for (size_t i = 0; i < ca.size(); ++i) {
      EXPECT_EQ(ca[i].visits, cb[i].visits);
      EXPECT_NEAR(ca[i].q, cb[i].q, 1e-6);
    }
  }
}

TEST(TreeTest, ABatchBacksUpAsLeafByLeaf) {
  TreeScratch scratch;
  // One call for a batch's backups (one lock a node for the leaves below
  // it) leaves every statistic as backing them up one by one does, in the
  // same order, to the last bit.
  for (bool multi_gather : {false, true}) {
    SearchParams params;
    params.multi_gather = multi_gather;
    SearchTree by_leaf(params), batched(params);
    HashEvaluator evaluator;
    Grow(by_leaf, evaluator, 1);
    Grow(batched, evaluator, 1);
    for (int round = 0; round < 60; ++round) {
      std::vector<Leaf> leaves_a(6), leaves_b(6);
      bool collided = false;
      const int count = by_leaf.Gather(6, 100000, leaves_a.data(), &collided, scratch);
      ASSERT_EQ(batched.Gather(6, 100000, leaves_b.data(), &collided, scratch), count);
      std::vector<Position> positions;
      for (int i = 0; i < count; ++i) positions.push_back(leaves_a[size_t(i)].position);
      std::vector<EvalOutput> out(static_cast<size_t>(count));
      evaluator.Evaluate(positions.data(), count, out.data());
      for (int i = 0; i < count; ++i) by_leaf.ExpandAndBackup(leaves_a[size_t(i)], out[size_t(i)]);
      batched.ExpandAndBackup(leaves_b.data(), out.data(), count, scratch);
    }
    EXPECT_GT(batched.root_visits(), 300u);
    EXPECT_EQ(batched.root_visits(), by_leaf.root_visits());
    EXPECT_EQ(batched.root_in_flight(), 0u);
    EXPECT_EQ(batched.RootValue(), by_leaf.RootValue());
    EXPECT_EQ(batched.RootDraw(), by_leaf.RootDraw());
    const std::vector<RootChild> a = by_leaf.RootChildren(), b = batched.RootChildren();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].visits, b[i].visits);
      EXPECT_EQ(a[i].q, b[i].q);
      EXPECT_EQ(a[i].q_stdev, b[i].q_stdev);
      EXPECT_EQ(by_leaf.PrincipalVariation(a[i].move, 8), batched.PrincipalVariation(b[i].move, 8));
    }
  }
}

TEST(TreeTest, MultiGatherBacksUpProvenNodesToTheTarget) {
  // Black wins at once (a3-b2); without the solver the win stays a child:
  // a batch's shares that reach it are backed up at once, and a further
  // descent takes the rest, to the visit target exactly.
  const Position pos = Position::FromString("7w/8/7w/8/8/b7/8/b7 b");
  Game game(Rules(), pos);
  SearchParams params;
  params.solver = false;
  params.multi_gather = true;
  SearchTree tree(params);
  tree.SetRoot(game, false);
  tree.BeginSearch(false, false, nullptr);
  UniformEvaluator evaluator;
  while (!tree.Done(301)) ASSERT_LE(RunBatch(tree, evaluator, 301, 4), 4);
  EXPECT_EQ(tree.root_visits(), 301u);
  EXPECT_EQ(tree.root_in_flight(), 0u);
  const Move best = ChooseBestMove(tree.RootChildren());
  game.Play(best);
  EXPECT_TRUE(game.over()) << FormatMove(best);
}

}  // namespace
}  // namespace loa
