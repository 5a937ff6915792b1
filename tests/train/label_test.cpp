// loaz label's core: a run's samples solved, the proven ones written with
// the proof as their target, the exam's games and positions held out.

#include "train/label.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "solve/testing.h"
#include "train/shard.h"

namespace loa::train {
namespace {

namespace fs = std::filesystem;

class LabelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("loaz_label_" + std::to_string(::getpid()))).string();
    fs::remove_all(root_);
    fs::create_directories(root_ + "/from/selfplay");
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string root_;
};

// A shard of the solver's cases, one a game, each sample's outcome the
// opposite of its proof where `wrong` says, each with a policy target.
Shard CaseShard(const std::vector<int>& cases, const std::vector<bool>& wrong) {
  Shard shard;
  shard.games = int(cases.size());
  for (size_t g = 0; g < cases.size(); ++g) {
    const testing::SolverCase& c = testing::kSolverCases[cases[g]];
    const Position pos = Position::FromString(c.position);
    Sample s;
    s.black = pos.pieces(kBlack);
    s.white = pos.pieces(kWhite);
    s.side_to_move = pos.side_to_move();
    s.flags = kFullSearch;
    s.outcome = int8_t((c.win != wrong[g]) ? 1 : -1);
    s.root_value = 0.5f;
    s.game = uint16_t(g);
    MoveList moves;
    pos.GenerateMoves(moves);
    shard.Add(s, {{moves[0].PolicyIndex(), 0.75f}, {moves[1].PolicyIndex(), 0.25f}});
    shard.finals.push_back({pos.pieces(kBlack), pos.pieces(kWhite)});
  }
  return shard;
}

TEST_F(LabelTest, ProvenSamplesTakeTheProofAndTheExamIsHeldOut) {
  // Cases 0-3 wins, 6 and 7 losses; case 1 twice (a second game), once held out by position.
  const std::vector<int> cases = {0, 1, 2, 3, 6, 7, 1};
  const std::vector<bool> wrong = {false, true, false, true, true, false, false};
  WriteShard(root_ + "/from/selfplay/main-w0_000000.shard", CaseShard(cases, wrong));
  const run::RunDir from(root_ + "/from");
  LabelOptions opts;
  opts.nodes = 1000000;
  opts.memory_mb = 8;
  opts.threads = 2;
  opts.held_out_games = {"main-w0_000000_g2"};  // case 2's game
  opts.held_out_positions = {Position::FromString(testing::kSolverCases[7].position).hash()};
  const LabelCounts n = LabelShards(from, root_ + "/to/selfplay", opts, {}, root_ + "/control/selfplay");
  EXPECT_EQ(n.samples, 7);
  EXPECT_EQ(n.held_out, 2);
  EXPECT_EQ(n.drawn, 4);  // 0, 1, 3, 6: case 1's second game is the same position
  EXPECT_EQ(n.proven, 4);
  EXPECT_EQ(n.shards, 1);
  EXPECT_EQ(n.rows.back().proven, 4);
  EXPECT_EQ(n.rows.back().against, 3);  // cases 1, 3 and 6 had the wrong outcome
  EXPECT_EQ(n.rows[0].proven, 1);       // case 0: a win in one

  const Shard out = ReadShard(root_ + "/to/selfplay/main-w0_000000.shard");
  EXPECT_EQ(out.games, int(cases.size()));
  ASSERT_EQ(out.samples.size(), 4u);
  const int expected[] = {0, 1, 3, 6};
  for (size_t i = 0; i < out.samples.size(); ++i) {
    const Sample& s = out.samples[i];
    const testing::SolverCase& c = testing::kSolverCases[expected[i]];
    EXPECT_EQ(s.position(), Position::FromString(c.position));
    EXPECT_EQ(s.outcome, c.win ? 1 : -1) << c.position;
    EXPECT_EQ(s.root_value, c.win ? 1.0f : -1.0f);
    EXPECT_TRUE(s.flags & kProven);
    EXPECT_TRUE(s.flags & kFullSearch);
    // Its policy target and its game's final board come along.
    ASSERT_EQ(s.num_policy, 2);
    EXPECT_NEAR(out.policy[s.policy_offset].prob / kProbScale, 0.75, 1e-4);
    EXPECT_EQ(out.FinalOf(s).black, s.black);
  }
  // The control: the same samples, their games' outcomes kept.
  const Shard control = ReadShard(root_ + "/control/selfplay/main-w0_000000.shard");
  ASSERT_EQ(control.samples.size(), 4u);
  const size_t games[] = {0, 1, 3, 4};  // the games of the cases kept
  for (size_t i = 0; i < control.samples.size(); ++i) {
    const Sample& s = control.samples[i];
    EXPECT_EQ(s.position(), out.samples[i].position());
    EXPECT_EQ(s.game, games[i]);
    EXPECT_EQ(s.outcome, wrong[games[i]] ? -out.samples[i].outcome : out.samples[i].outcome);
    EXPECT_FALSE(s.flags & kProven);
    EXPECT_EQ(s.root_value, 0.5f);
  }
}

TEST_F(LabelTest, AnUnprovenSampleIsDroppedAndARunWithoutShardsIsAnError) {
  WriteShard(root_ + "/from/selfplay/main-w0_000000.shard", CaseShard({10, 13}, {false, false}));
  LabelOptions opts;
  opts.nodes = 1;  // too few to prove a win in five
  const LabelCounts n = LabelShards(run::RunDir(root_ + "/from"), root_ + "/to/selfplay", opts);
  EXPECT_EQ(n.drawn, 2);
  EXPECT_EQ(n.proven, 0);
  EXPECT_EQ(n.shards, 0);
  EXPECT_FALSE(fs::exists(root_ + "/to/selfplay/main-w0_000000.shard"));
  fs::create_directories(root_ + "/empty");
  EXPECT_THROW(LabelShards(run::RunDir(root_ + "/empty"), root_ + "/to2", opts), Error);
}

}  // namespace
}  // namespace loa::train
