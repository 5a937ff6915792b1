#include "train/game_samples.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "mcts/testing.h"
#include "solve/testing.h"
#include "tests/mcts/test_util.h"

namespace loa::train {
namespace {

// A game of `plies` moves (each the first legal one) with the given root
// values, as the self-play driver reports it.
SelfPlayGame MakeGame(int plies, const std::vector<float>& values) {
  SelfPlayGame g;
  for (int ply = 0; ply < plies && !g.game.over(); ++ply) {
    MoveList moves;
    g.game.LegalMoves(moves);
    SearchedMove m;
    m.position = g.game.position();
    m.move = moves[0];
    m.policy = {{moves[0], 0.75f}, {moves[1], 0.25f}};
    m.root_value = ply < int(values.size()) ? values[size_t(ply)] : 0.0f;
    m.full_search = ply % 3 != 2;
    g.game.Play(moves[0]);
    g.moves.push_back(m);
  }
  return g;
}

TEST(GameSamplesTest, ResignsOnConsecutiveLowValuesOfTheMover) {
  // Black moves at plies 0, 2, 4; White at 1, 3, 5.
  EXPECT_FALSE(WouldResign(MakeGame(5, {-0.99f, 0, -0.99f, 0, -0.99f}), -0.9, 4));
  EXPECT_TRUE(WouldResign(MakeGame(5, {-0.99f, 0, -0.99f, 0, -0.99f}), -0.9, 3));
  EXPECT_FALSE(WouldResign(MakeGame(5, {-0.5f, 0, -0.99f, 0, -0.99f}), -0.9, 3));
  EXPECT_FALSE(WouldResign(MakeGame(6, {-0.99f, 0, -0.99f, 0, -0.99f, 0}), -0.9, 3));  // White moved last
  EXPECT_FALSE(WouldResign(MakeGame(5, {-0.99f, 0, -0.99f, 0, -0.99f}), -1.0, 1));     // off
}

TEST(GameSamplesTest, ResignedGameIsALossForTheResigner) {
  const SelfPlayGame g = MakeGame(5, {});
  ASSERT_FALSE(g.game.over());
  const GameOutcome o = OutcomeOf(g);
  EXPECT_TRUE(o.resigned);
  EXPECT_EQ(o.result, Result::kWhiteWins);  // Black made the last move and resigned
}

TEST(GameSamplesTest, SamplesCarryTheOutcomeForTheSideToMove) {
  const SelfPlayGame g = MakeGame(9, {0.1f, -0.2f, 0.3f, -0.4f, 0.5f, -0.6f, 0.7f, -0.8f, 0.9f});
  GameOutcome o;
  o.result = Result::kBlackWins;
  Shard shard;
  const int added = AppendGame(g, o, &shard);
  EXPECT_EQ(added, 6);  // plies 2, 5 and 8 were cheap searches
  EXPECT_EQ(shard.games, 1);
  // The ownership target: the game's last position.
  ASSERT_EQ(shard.finals.size(), 1u);
  EXPECT_EQ(shard.finals[0].black, g.game.position().pieces(kBlack));
  EXPECT_EQ(shard.finals[0].white, g.game.position().pieces(kWhite));
  EXPECT_NE(shard.finals[0].black, shard.samples[0].black);  // Black's pieces moved
  ASSERT_EQ(shard.samples.size(), 6u);
  for (const Sample& s : shard.samples) {
    EXPECT_EQ(s.outcome, s.side_to_move == kBlack ? 1 : -1) << "ply " << s.ply;
    EXPECT_EQ(s.plies_left, 9 - s.ply);
    EXPECT_FLOAT_EQ(s.root_value, g.moves[s.ply].root_value);
    EXPECT_EQ(s.num_policy, 2);
    EXPECT_EQ(shard.policy[s.policy_offset].index, g.moves[s.ply].move.PolicyIndex());
    EXPECT_EQ(s.position(), g.moves[s.ply].position);
    // The opponent's reply: the move played next, from a cheap search too
    // (after plies 1, 4 and 7).
    EXPECT_EQ(s.reply, g.moves[s.ply + 1].move.PolicyIndex()) << "ply " << s.ply;
  }
  // A game whose last move was a full search: that sample has no reply.
  Shard ended;
  AppendGame(MakeGame(8, {}), o, &ended);
  ASSERT_EQ(ended.samples.back().ply, 7u);
  EXPECT_EQ(ended.samples.back().reply, kNoReply);
  EXPECT_NE(ended.samples[ended.samples.size() - 2].reply, kNoReply);
  o.result = Result::kDraw;
  o.capped = true;
  Shard drawn;
  AppendGame(g, o, &drawn);
  for (const Sample& s : drawn.samples) {
    EXPECT_EQ(s.outcome, 0);
    EXPECT_TRUE(s.flags & kGameCapped);
  }
}

TEST(GameSamplesTest, SurpriseWeightingMovesSamplesToSurprisingPositions) {
  // Six full searches (plies 0, 1, 3, 4, 6, 7) with surprises 0, 0, 0, 0, 1, 2:
  // the mean is 0.5, so with share 1 the weights are 0, 0, 0, 0, 2 and 4.
  SelfPlayGame g = MakeGame(9, {});
  const std::vector<float> surprises = {0, 0, 0, 0, 0, 0, 1, 2, 0};
  for (size_t ply = 0; ply < g.moves.size(); ++ply) g.moves[ply].surprise = surprises[ply];
  GameOutcome o;
  o.result = Result::kBlackWins;
  Rng rng(1);
  Shard weighted;
  EXPECT_EQ(AppendGame(g, o, &weighted, 1.0, &rng), 6);
  std::vector<uint32_t> plies;
  for (const Sample& s : weighted.samples) plies.push_back(s.ply);
  EXPECT_EQ(plies, (std::vector<uint32_t>{6, 6, 7, 7, 7, 7}));

  // With share 0.5 the weights are 0.5, 0.5, 0.5, 0.5, 1.5, 2.5: the
  // surprising ones are written at least once and twice, and the game keeps
  // its six samples on average.
  int total = 0, ply7 = 0;
  const int games = 2000;
  for (int i = 0; i < games; ++i) {
    Shard shard;
    total += AppendGame(g, o, &shard, 0.5, &rng);
    int sevens = 0;
    for (const Sample& s : shard.samples) sevens += s.ply == 7;
    EXPECT_GE(sevens, 2);
    EXPECT_LE(sevens, 3);
    ply7 += sevens;
  }
  EXPECT_NEAR(double(total) / games, 6.0, 0.1);
  EXPECT_NEAR(double(ply7) / games, 2.5, 0.05);

  // A game with no surprise at all is written as it stands.
  for (SearchedMove& m : g.moves) m.surprise = 0;
  Shard flat;
  EXPECT_EQ(AppendGame(g, o, &flat, 1.0, &rng), 6);
}

// The self-play game of a forced win's proving line (full searches only).
SelfPlayGame ProvingLine(const char* fen) {
  SelfPlayGame g;
  g.game = Game(Rules(), Position::FromString(fen));
  solve::Solver solver(16);
  const solve::SolveResult r = solver.Solve(g.game, solve::SolveLimits());
  EXPECT_EQ(r.outcome, solve::Outcome::kWin);
  for (Move move : r.line) {
    SearchedMove m;
    m.position = g.game.position();
    m.move = move;
    m.policy = {{move, 1.0f}};
    g.game.Play(move);
    g.moves.push_back(m);
  }
  EXPECT_TRUE(g.game.over());
  return g;
}

TEST(GameSamplesTest, ProofsGiveEachSampleTheResultForItsSideToMove) {
  const testing::SolverCase& c = testing::kSolverCases[1];  // Black wins in 3
  ASSERT_TRUE(c.win);
  ASSERT_EQ(c.plies, 3);
  SelfPlayGame g = ProvingLine(c.position);
  ASSERT_EQ(g.moves.size(), 3u);
  solve::Solver solver(16);
  EXPECT_EQ(ProveSamples(g, &solver, 100000, 4), (std::vector<int8_t>{1, -1, 1}));

  // Only samples are solved: White's move (ply 1) a cheap search.
  g.moves[1].full_search = false;
  EXPECT_EQ(ProveSamples(g, &solver, 100000, 4), (std::vector<int8_t>{1, kUnproven, 1}));

  // Too few nodes to prove anything but the win in one; giving up after one
  // miss, nothing before it is tried.
  solver.Clear();
  g.moves[1].full_search = true;
  EXPECT_EQ(ProveSamples(g, &solver, 1, 1), (std::vector<int8_t>{kUnproven, kUnproven, 1}));
}

TEST(GameSamplesTest, AProvenResultReplacesTheGamesOutcome) {
  const SelfPlayGame g = ProvingLine(testing::kSolverCases[1].position);
  // As if the game had been resigned by Black, the proven winner: the
  // samples say what the proof says, flagged; an unproven one keeps the
  // game's outcome.
  GameOutcome o;
  o.result = Result::kWhiteWins;
  const std::vector<int8_t> proven = {1, -1, kUnproven};
  Shard shard;
  ASSERT_EQ(AppendGame(g, o, &shard, 0, nullptr, &proven), 3);
  EXPECT_EQ(shard.samples[0].outcome, 1);
  EXPECT_TRUE(shard.samples[0].flags & kProven);
  EXPECT_EQ(shard.samples[1].outcome, -1);
  EXPECT_TRUE(shard.samples[1].flags & kProven);
  EXPECT_EQ(shard.samples[2].outcome, -1);  // Black to move; White won the game
  EXPECT_FALSE(shard.samples[2].flags & kProven);
  // The flag survives the shard's bytes.
  const Shard read = ParseShard(SerializeShard(shard), "proven");
  EXPECT_TRUE(read.samples[0].flags & kProven);
  EXPECT_FALSE(read.samples[2].flags & kProven);
}

TEST(GameSamplesTest, RootProofsAreTheFullSearchesWonOrLostRoots) {
  SelfPlayGame g = MakeGame(6, {});  // plies 2 and 5 cheap searches
  g.moves[0].proven = Proven::kWin;
  g.moves[1].proven = Proven::kDraw;  // a draw may rest on the game's history
  g.moves[2].proven = Proven::kLoss;  // a cheap search: not a sample
  g.moves[3].proven = Proven::kLoss;
  std::vector<int8_t> proven = RootProofs(g);
  EXPECT_EQ(proven, (std::vector<int8_t>{1, kUnproven, kUnproven, -1, kUnproven, kUnproven}));
  // A solver's answers fill only what the roots left unproven.
  MergeProofs({-1, 0, 1, 1, kUnproven, -1}, &proven);
  EXPECT_EQ(proven, (std::vector<int8_t>{1, 0, 1, -1, kUnproven, -1}));
}

TEST(GameSamplesTest, TreeProofsAreValueTargetsAlone) {
  SelfPlayGame g = MakeGame(4, {});
  const Position off_line = g.moves[1].position.Apply(g.moves[1].policy[1].move);
  g.tree_proofs.push_back({{off_line, Proven::kLoss, 7}, 1});
  g.tree_proofs.push_back({{g.game.position(), Proven::kWin, 1}, 3});
  GameOutcome o;
  o.result = Result::kBlackWins;
  Shard shard;
  ASSERT_EQ(AppendGame(g, o, &shard), 3 + 2);  // three full searches, then the proofs
  const Shard read = ParseShard(SerializeShard(shard), "tree proofs");
  ASSERT_EQ(read.samples.size(), 5u);
  for (int k = 0; k < 2; ++k) {
    const Sample& s = read.samples[size_t(3 + k)];
    const TreeProof& t = g.tree_proofs[size_t(k)];
    EXPECT_EQ(s.position(), t.proof.position);
    EXPECT_EQ(s.flags & (kProven | kTreeProof | kFullSearch), kProven | kTreeProof);
    EXPECT_EQ(s.outcome, k == 0 ? -1 : 1);
    EXPECT_EQ(s.root_value, float(s.outcome));
    EXPECT_EQ(s.plies_left, t.proof.plies);
    EXPECT_EQ(s.ply, uint32_t(t.ply));
    EXPECT_EQ(s.num_policy, 0);
    EXPECT_EQ(s.reply, kNoReply);
    EXPECT_EQ(s.game, 0);
  }
  for (int k = 0; k < 3; ++k) EXPECT_FALSE(read.samples[size_t(k)].flags & kTreeProof);
}

TEST(GameSamplesTest, TheSearchTreesProofsAgreeWithTheSolver) {
  // Self-play on 6x6 with the proofs kept: each, solved again from its
  // position alone (no history), has the result the search tree gave it.
  Rules rules;
  rules.size = 6;
  rules.max_plies = 120;
  SearchParams params;
  params.playouts = 400;
  params.cheap_playouts = 100;
  params.full_search_fraction = 0.5f;
  testing::HashEvaluator evaluator;
  SelfPlayGames plays;
  plays.parallel = 4;
  plays.seed = 5;
  plays.count = 16;
  plays.tree_proofs = 3;
  SelfPlayDriver driver(&evaluator, params, rules, plays);
  solve::Solver solver(16);
  solve::SolveLimits limits;
  limits.nodes = 2000000;
  int proofs = 0, longer = 0;
  for (const SelfPlayGame& g : testing::PlayAll(driver)) {
    std::set<uint64_t> seen;
    std::map<int, int> per_search;
    for (const TreeProof& t : g.tree_proofs) {
      EXPECT_TRUE(seen.insert(t.proof.position.hash()).second) << "each position once a game";
      EXPECT_LE(++per_search[t.ply], plays.tree_proofs);
      ASSERT_GE(t.ply, 0);
      ASSERT_LT(t.ply, int(g.moves.size()));
      const solve::SolveResult r = solver.Solve(Game(rules, t.proof.position), limits);
      ASSERT_NE(r.outcome, solve::Outcome::kUnknown);
      EXPECT_EQ(r.outcome, t.proof.result == Proven::kWin ? solve::Outcome::kWin : solve::Outcome::kLoss)
          << "game " << g.index << " ply " << t.ply;
      EXPECT_GE(t.proof.plies, kMinTreeProofPlies);
      longer += t.proof.plies >= 3;
      ++proofs;
    }
  }
  EXPECT_GT(proofs, 16);
  EXPECT_GT(longer, 0);
}

}  // namespace
}  // namespace loa::train
