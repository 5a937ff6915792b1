#include "train/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "core/game.h"
#include "net/encoder.h"
#include "net/symmetry.h"
#include "net/training_heads.h"

namespace loa::train {
namespace {

namespace fs = std::filesystem;

// A shard of one game of `plies` moves from the start; every sample's
// target is the move played, its outcome `outcome`, its ply in `ply` and
// its shard number in `game` (so that tests can tell shards apart).
std::shared_ptr<Shard> GameShard(int number, int plies, int8_t outcome = 1) {
  auto shard = std::make_shared<Shard>();
  shard->games = 1;
  Game game;
  for (int ply = 0; ply < plies && !game.over(); ++ply) {
    MoveList moves;
    game.LegalMoves(moves);
    const Move m = moves[(number * 7 + ply * 3) % moves.size()];
    Sample s;
    s.black = game.position().pieces(kBlack);
    s.white = game.position().pieces(kWhite);
    s.side_to_move = game.position().side_to_move();
    s.outcome = outcome;
    s.plies_left = uint16_t(plies - ply);
    s.ply = uint32_t(number);  // the shard's number, for the tests
    shard->Add(s, {{m.PolicyIndex(), 1.0f}});
    game.Play(m);
  }
  return shard;
}

run::ReplayConfig NoValidation(int64_t window) {
  run::ReplayConfig c;
  c.window = window;
  c.min_samples = 1;
  c.validation_share = 0;
  return c;
}

TEST(ReplayBufferTest, WindowKeepsTheNewestShards) {
  ReplayBuffer buffer(NoValidation(25), 1);
  // Shards of 10 samples: old ones lost, the three newest won.
  for (int i = 0; i < 10; ++i) buffer.Add("s" + std::to_string(i), GameShard(i, 10, i < 7 ? -1 : 1));
  EXPECT_EQ(buffer.size(), 30);  // the newest three fill 25; the fourth goes
  EXPECT_EQ(buffer.shards(), 3);
  Batch batch;
  buffer.SampleBatch(3000, Split::kTrain, &batch);
  std::map<float, int> moves_left;
  for (int r = 0; r < batch.size; ++r) {
    EXPECT_EQ(batch.wdl[size_t(r) * 3], 1.0f) << "row " << r << " comes from an evicted shard";
    moves_left[batch.moves_left[r]]++;
  }
  // Uniform over the window: plies left 1..10, 300 of each expected.
  EXPECT_EQ(moves_left.size(), 10u);
  for (const auto& [value, count] : moves_left) {
    EXPECT_GT(count, 200) << value;
    EXPECT_LT(count, 400) << value;
  }
}

TEST(ReplayBufferTest, AProvenSampleTakesItsProofAsTheRootValueToo) {
  const std::shared_ptr<Shard> shard = GameShard(0, 2, -1);
  for (Sample& s : shard->samples) s.root_value = 0.5f;
  shard->samples[1].flags |= kProven;  // its outcome, -1, is exact
  Batch batch;
  batch.Resize(2);
  for (int r = 0; r < 2; ++r) FillBatchRow(*shard, shard->samples[size_t(r)], 0, r, &batch);
  EXPECT_EQ(batch.root_value[0], 0.5f);  // the search's value
  EXPECT_EQ(batch.root_value[1], -1.0f);
  EXPECT_EQ(batch.wdl[2], 1.0f);
  EXPECT_EQ(batch.wdl[5], 1.0f);
}

TEST(ReplayBufferTest, SamplesAreConsistentUnderSymmetries) {
  run::ReplayConfig config = NoValidation(1000);
  ReplayBuffer buffer(config, 3);
  for (int i = 0; i < 4; ++i) buffer.Add("s" + std::to_string(i), GameShard(i, 20, int8_t(i % 3 - 1)));
  Batch batch;
  buffer.SampleBatch(500, Split::kTrain, &batch);
  for (int r = 0; r < batch.size; ++r) {
    float mass = 0, wdl = 0;
    for (int i = 0; i < kPolicySize; ++i) {
      const float p = batch.policy[size_t(r) * kPolicySize + i];
      mass += p;
      // The target is always a legal move of the transformed position.
      if (p > 0) {
        EXPECT_EQ(batch.legal_mask[size_t(r) * kPolicySize + i], 0.0f);
      }
    }
    for (int k = 0; k < 3; ++k) wdl += batch.wdl[size_t(r) * 3 + k];
    EXPECT_NEAR(mass, 1.0f, 1e-4);
    EXPECT_EQ(wdl, 1.0f);
    // Twelve pieces a side in these opening positions, on the own and enemy planes.
    float own = 0;
    for (int s = 0; s < kNumSquares; ++s) own += batch.planes[size_t(r) * kInputSize + kOwnPlane * 64 + s];
    EXPECT_GE(own, 1.0f);
  }
}

TEST(ReplayBufferTest, SymmetriesAreUsed) {
  run::ReplayConfig config = NoValidation(1000);
  ReplayBuffer buffer(config, 5);
  buffer.Add("s", GameShard(0, 1));  // one sample: the start position
  Batch batch;
  buffer.SampleBatch(200, Split::kTrain, &batch);
  std::map<int, int> targets;  // the played move's policy slot under each symmetry
  for (int r = 0; r < batch.size; ++r)
    for (int i = 0; i < kPolicySize; ++i)
      if (batch.policy[size_t(r) * kPolicySize + i] > 0) targets[i]++;
  EXPECT_GE(targets.size(), 4u);  // 8 symmetries; some may map a move alike
  config.symmetries = false;
  ReplayBuffer plain(config, 5);
  plain.Add("s", GameShard(0, 1));
  plain.SampleBatch(50, Split::kTrain, &batch);
  targets.clear();
  for (int r = 0; r < batch.size; ++r)
    for (int i = 0; i < kPolicySize; ++i)
      if (batch.policy[size_t(r) * kPolicySize + i] > 0) targets[i]++;
  EXPECT_EQ(targets.size(), 1u);
}

TEST(ReplayBufferTest, TheOwnershipTargetTurnsWithTheBoard) {
  // Games of one sample each whose final board is that sample's own: under
  // every symmetry the target's own and enemy squares are the input's.
  auto shard = GameShard(3, 30);
  shard->games = int(shard->samples.size());
  for (size_t i = 0; i < shard->samples.size(); ++i) {
    Sample& s = shard->samples[i];
    s.game = uint16_t(i);
    shard->finals.push_back({s.black, s.white});
  }
  ReplayBuffer buffer(NoValidation(1000), 9);
  buffer.Add("s", shard);
  Batch batch;
  buffer.SampleBatch(400, Split::kTrain, &batch);
  for (int r = 0; r < batch.size; ++r) {
    ASSERT_EQ(batch.head_weights[kOwnershipHead][r], 1.0f);
    const float* target = &batch.head_targets[kOwnershipHead][size_t(r) * kOwnershipClasses * kNumSquares];
    const float* planes = &batch.planes[size_t(r) * kInputSize];
    for (int sq = 0; sq < kNumSquares; ++sq) {
      EXPECT_EQ(target[kOwnershipOwn * kNumSquares + sq], planes[kOwnPlane * kNumSquares + sq]) << r << " " << sq;
      EXPECT_EQ(target[kOwnershipEnemy * kNumSquares + sq], planes[kEnemyPlane * kNumSquares + sq]);
      EXPECT_EQ(target[kOwnershipOwn * kNumSquares + sq] + target[kOwnershipEnemy * kNumSquares + sq] +
                    target[kOwnershipEmpty * kNumSquares + sq],
                1.0f);
    }
  }
  // A shard without final boards (an older version's) has no target.
  ReplayBuffer older(NoValidation(1000), 9);
  older.Add("s", GameShard(3, 30));
  older.SampleBatch(10, Split::kTrain, &batch);
  for (int r = 0; r < batch.size; ++r) EXPECT_EQ(batch.head_weights[kOwnershipHead][r], 0.0f);
}

// Returns the one slot of a one-hot row of kPolicySize floats, or -1.
int HotSlot(const std::vector<float>& rows, int r) {
  int hot = -1;
  for (int i = 0; i < kPolicySize; ++i)
    if (rows[size_t(r) * kPolicySize + i] > 0) hot = hot < 0 ? i : -2;
  return hot;
}

TEST(ReplayBufferTest, TheReplyTargetTurnsWithTheBoard) {
  // The start position, its played move and the reply played after it:
  // under every symmetry the reply stays a legal move after the move.
  auto shard = GameShard(0, 2);
  Sample& first = shard->samples[0];
  const Position start = first.position();
  const int move = shard->policy[first.policy_offset].index;
  const int reply = shard->policy[shard->samples[1].policy_offset].index;
  first.reply = uint16_t(reply);
  shard->samples.pop_back();  // the reply's own sample
  ReplayBuffer buffer(NoValidation(1000), 3);
  buffer.Add("s", shard);
  Batch batch;
  buffer.SampleBatch(200, Split::kTrain, &batch);
  std::set<int> replies;
  for (int r = 0; r < batch.size; ++r) {
    ASSERT_EQ(batch.head_weights[kReplyHead][r], 1.0f);
    const int hot_move = HotSlot(batch.policy, r), hot_reply = HotSlot(batch.head_targets[kReplyHead], r);
    ASSERT_GE(hot_reply, 0) << "row " << r << ": not one-hot";
    replies.insert(hot_reply);
    bool consistent = false;  // some symmetry gives both the row's move and its reply
    for (int t = 0; t < kNumSymmetries; ++t) {
      if (TransformPolicyIndex(t, move) != hot_move || TransformPolicyIndex(t, reply) != hot_reply) continue;
      const Position turned = TransformPosition(t, start);
      const Move m = MoveOfPolicyIndex(turned, hot_move);
      consistent |= !m.is_null() && !MoveOfPolicyIndex(turned.Apply(m), hot_reply).is_null();
    }
    EXPECT_TRUE(consistent) << "row " << r;
  }
  EXPECT_GE(replies.size(), 4u);  // the symmetries were used
  // A sample without a reply (a game's last, an older shard's) has no target.
  ReplayBuffer none(NoValidation(1000), 3);
  none.Add("s", GameShard(1, 5));
  none.SampleBatch(20, Split::kTrain, &batch);
  for (int r = 0; r < batch.size; ++r) {
    EXPECT_EQ(batch.head_weights[kReplyHead][r], 0.0f);
    EXPECT_EQ(HotSlot(batch.head_targets[kReplyHead], r), -1);
  }
}

TEST(ReplayBufferTest, TheSoftPolicyTargetIsThePolicyFlattened) {
  // Each row's soft target is its policy target to the power 1/4,
  // normalised: the same slots, a flatter distribution.
  auto shard = std::make_shared<Shard>();
  shard->games = 1;
  const auto game = GameShard(2, 20);
  for (const Sample& s : game->samples) {  // each position, two moves at 0.9 and 0.1
    MoveList moves;
    s.position().GenerateMoves(moves);
    shard->Add(s, {{moves[0].PolicyIndex(), 0.9f}, {moves[1].PolicyIndex(), 0.1f}});
  }
  ReplayBuffer buffer(NoValidation(1000), 5);
  buffer.Add("s", shard);
  Batch batch;
  buffer.SampleBatch(50, Split::kTrain, &batch);
  const std::vector<float>& soft = batch.head_targets[kSoftPolicyHead];
  int flattened = 0;
  for (int r = 0; r < batch.size; ++r) {
    ASSERT_EQ(batch.head_weights[kSoftPolicyHead][r], 1.0f);
    const float* p = &batch.policy[size_t(r) * kPolicySize];
    const float* q = &soft[size_t(r) * kPolicySize];
    double norm = 0, soft_total = 0, max = 0, soft_max = 0;
    for (int i = 0; i < kPolicySize; ++i) norm += p[i] > 0 ? std::pow(double(p[i]), 0.25) : 0.0;
    for (int i = 0; i < kPolicySize; ++i) {
      EXPECT_EQ(p[i] > 0, q[i] > 0) << "row " << r << " slot " << i;
      if (p[i] > 0) {
        EXPECT_NEAR(q[i], std::pow(double(p[i]), 0.25) / norm, 1e-6) << "row " << r << " slot " << i;
      }
      soft_total += q[i], max = std::max<double>(max, p[i]), soft_max = std::max<double>(soft_max, q[i]);
    }
    EXPECT_NEAR(soft_total, 1.0, 1e-5);
    EXPECT_LE(soft_max, max + 1e-6) << "row " << r;
    flattened += soft_max < max - 1e-3;
  }
  EXPECT_EQ(flattened, batch.size);  // 0.9 : 0.1 becomes 0.63 : 0.37
  // A sample without a policy target has no soft one.
  auto empty = GameShard(2, 3);
  for (Sample& s : empty->samples) s.num_policy = 0;
  ReplayBuffer none(NoValidation(1000), 5);
  none.Add("s", empty);
  none.SampleBatch(10, Split::kTrain, &batch);
  for (int r = 0; r < batch.size; ++r) EXPECT_EQ(batch.head_weights[kSoftPolicyHead][r], 0.0f);
}

TEST(ReplayBufferTest, ValidationShardsAreHeldOut) {
  run::ReplayConfig config = NoValidation(100000);
  config.validation_share = 0.25;
  ReplayBuffer buffer(config, 1);
  int held_out = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string name = "w0_" + std::to_string(i) + ".shard";
    held_out += buffer.IsValidation(name);
    buffer.Add(name, GameShard(i, 2));
  }
  EXPECT_GT(held_out, 25);
  EXPECT_LT(held_out, 75);
  EXPECT_EQ(buffer.validation_size(), 2 * held_out);
  EXPECT_EQ(buffer.size(), 2 * (200 - held_out));
}

class ShardFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = (fs::temp_directory_path() / ("loaz_feed_" + test + "_" + std::to_string(::getpid()))).string();
    fs::remove_all(root_);
    run::RunDir(root_).Create();
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string root_;
};

TEST_F(ShardFeedTest, CorruptShardIsSkippedWithAWarningNamingIt) {
  run::RunDir run(root_);
  WriteShard(run.ShardPath({"w", 0}), *GameShard(0, 10));
  WriteFileAtomic(run.ShardPath({"w", 1}), "garbage that is not a shard at all, 40 bytes or more, surely");
  WriteShard(run.ShardPath({"w", 2}), *GameShard(2, 10));
  WriteFileAtomic(run.SelfplayDir() + "/w_000003.shard.tmp.123", "half a shard");  // a write cut short
  const std::string log_path = root_ + "/log.txt";
  {
    run::Logger log(log_path, run::LogLevel::kError);
    ShardFeed feed(run, log);
    ReplayBuffer buffer(NoValidation(1000), 1);
    EXPECT_EQ(feed.Poll(buffer), 20);
    EXPECT_EQ(buffer.size(), 20);
    EXPECT_EQ(feed.games_seen(), 2);
    EXPECT_EQ(feed.Poll(buffer), 0);  // nothing new, and no second warning
    WriteShard(run.ShardPath({"w", 4}), *GameShard(4, 5));
    EXPECT_EQ(feed.Poll(buffer), 5);
    EXPECT_EQ(feed.train_samples_seen(), 25);
  }
  const std::string log_text = ReadFile(log_path);
  EXPECT_NE(log_text.find("w_000001.shard"), std::string::npos) << log_text;
  EXPECT_EQ(log_text.find("w_000001.shard", log_text.find("w_000001.shard") + 1), std::string::npos) << log_text;
  EXPECT_EQ(log_text.find("shard.tmp"), std::string::npos) << log_text;
}

TEST_F(ShardFeedTest, ResumeReadsOnlyTheNewestWindowButCountsAll) {
  run::RunDir run(root_);
  for (int i = 0; i < 10; ++i) WriteShard(run.ShardPath({"w", i}), *GameShard(i, 10));
  run::Logger log("", run::LogLevel::kError);
  ShardFeed feed(run, log);
  ReplayBuffer buffer(NoValidation(30), 1);
  feed.Poll(buffer);
  EXPECT_EQ(buffer.size(), 30);
  EXPECT_EQ(feed.train_samples_seen(), 100);
  EXPECT_EQ(feed.games_seen(), 10);
}

TEST(WindowSizeTest, GrowsWithTheDataAsKataGosDoesUpToItsCap) {
  run::ReplayConfig c;
  c.window = 1000;
  EXPECT_EQ(run::WindowSize(c, 0), 1000);  // window_start 0: fixed
  EXPECT_EQ(run::WindowSize(c, 1 << 30), 1000);
  c.window_start = 100;
  c.window_growth = 0.4;
  c.window_exponent = 0.75;
  EXPECT_EQ(run::WindowSize(c, 0), 100);
  EXPECT_EQ(run::WindowSize(c, 100), 100);
  // 16 times the start: 100 * (1 + 0.4 * (16^0.75 - 1) / 0.75) = 100 * (1 + 0.4 * 7 / 0.75).
  EXPECT_EQ(run::WindowSize(c, 1600), int64_t(100 * (1 + 0.4 * 7 / 0.75)));
  EXPECT_LT(run::WindowSize(c, 1600), run::WindowSize(c, 3200));
  EXPECT_EQ(run::WindowSize(c, 1000000), 1000);
}

TEST_F(ShardFeedTest, AResumeSizesTheGrowingWindowForEveryShardBeforeReading) {
  run::RunDir run(root_);
  for (int i = 0; i < 10; ++i) WriteShard(run.ShardPath({"w", i}), *GameShard(i, 10));
  run::ReplayConfig c = NoValidation(1000);
  c.window_start = 20;
  c.window_growth = 1;
  c.window_exponent = 1;  // linear: the window is every sample
  run::Logger log("", run::LogLevel::kError);
  ShardFeed feed(run, log);
  ReplayBuffer buffer(c, 1);
  EXPECT_EQ(feed.Poll(buffer), 100);
  EXPECT_EQ(buffer.size(), 100);
  c.window_growth = 0.5;  // 20 * (1 + 0.5 * (N / 20 - 1)): 60 at 100 samples, 70 at 120
  ShardFeed feed2(run, log);
  ReplayBuffer half(c, 1);
  EXPECT_EQ(feed2.Poll(half), 60);
  EXPECT_EQ(half.size(), 60);
  WriteShard(run.ShardPath({"w", 10}), *GameShard(10, 10));
  WriteShard(run.ShardPath({"w", 11}), *GameShard(11, 10));
  EXPECT_EQ(feed2.Poll(half), 20);
  EXPECT_EQ(half.size(), 70);
}

}  // namespace
}  // namespace loa::train
