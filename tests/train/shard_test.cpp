#include "train/shard.h"

#include <gtest/gtest.h>

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/file_util.h"
#include "core/game.h"
#include "core/hash.h"
#include "core/random_play.h"

namespace loa::train {
namespace {

// A shard of `games` short games from the start, each sample's target
// spread over the first three legal moves, each but a game's last with
// the move played after it as its reply.
Shard MakeShard(int games) {
  Shard shard;
  shard.games = games;
  for (int g = 0; g < games; ++g) {
    Game game;
    for (int ply = 0; ply < 5; ++ply) {
      MoveList moves;
      game.LegalMoves(moves);
      Sample s;
      s.black = game.position().pieces(kBlack);
      s.white = game.position().pieces(kWhite);
      s.side_to_move = game.position().side_to_move();
      s.flags = kFullSearch;
      s.outcome = int8_t(ply % 3 - 1);
      s.root_value = 0.25f * float(ply % 2) - 0.1f;
      s.plies_left = uint16_t(5 - ply);
      s.game = uint16_t(g);
      s.ply = uint32_t(ply);
      const Move played = moves[g % moves.size()];
      if (ply > 0) shard.samples.back().reply = uint16_t(played.PolicyIndex());
      shard.Add(s, {{moves[0].PolicyIndex(), 0.5f},
                    {moves[1].PolicyIndex(), 0.3f},
                    {moves[2].PolicyIndex(), 0.2f},
                    {moves[3].PolicyIndex(), 0.0f}});
      game.Play(played);
    }
  }
  return shard;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("loaz_shard_test_" + name)).string();
}

TEST(ShardTest, RoundTrip) {
  const Shard shard = MakeShard(3);
  ASSERT_EQ(shard.samples.size(), 15u);
  ASSERT_EQ(shard.samples[0].num_policy, 3);  // the zero entry is dropped
  const std::string path = TempPath("round_trip.shard");
  WriteShard(path, shard);
  const Shard back = ReadShard(path);
  EXPECT_EQ(back.games, 3);
  ASSERT_EQ(back.samples.size(), shard.samples.size());
  for (size_t i = 0; i < shard.samples.size(); ++i) {
    const Sample &a = shard.samples[i], &b = back.samples[i];
    EXPECT_EQ(a.position(), b.position());
    EXPECT_EQ(a.outcome, b.outcome);
    EXPECT_EQ(a.root_value, b.root_value);
    EXPECT_EQ(a.plies_left, b.plies_left);
    EXPECT_EQ(a.game, b.game);
    EXPECT_EQ(a.ply, b.ply);
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(a.reply, b.reply);
    ASSERT_EQ(a.num_policy, b.num_policy);
    for (int k = 0; k < a.num_policy; ++k) {
      EXPECT_EQ(shard.policy[a.policy_offset + k].index, back.policy[b.policy_offset + k].index);
      EXPECT_EQ(shard.policy[a.policy_offset + k].prob, back.policy[b.policy_offset + k].prob);
    }
  }
  const ShardCounts counts = ReadShardCounts(path);
  EXPECT_EQ(counts.games, 3);
  EXPECT_EQ(counts.samples, 15);
  std::remove(path.c_str());
}

// Returns the message of parsing bytes as a shard, or "".
std::string ShardError(const std::string& bytes) {
  try {
    ParseShard(bytes, "w_000002.shard");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Returns bytes (a shard of this version, without fields) as an older
// version wrote it: without the count of fields (version 4), without the
// replies too (version 3), and without the final boards too (version 2), the checksum over the header's first 32 bytes
// and the payload.
std::string AsVersion(std::string bytes, const Shard& shard, uint32_t version) {
  assert(shard.fields.empty());
  bytes.resize(bytes.size() - 4);  // version 5's count of no fields
  const size_t finals = 40 + shard.samples.size() * 32, replies = finals + size_t(shard.games) * 16;
  std::string old = version >= 4 ? bytes : bytes.substr(0, replies) + bytes.substr(replies + shard.samples.size() * 2);
  if (version < 3) old = old.substr(0, finals) + old.substr(finals + size_t(shard.games) * 16);
  std::memcpy(old.data() + 8, &version, 4);
  const uint64_t payload_bytes = old.size() - 40;
  std::memcpy(old.data() + 24, &payload_bytes, 8);
  const uint64_t checksum = Fnv1a64(std::string_view(old).substr(40), Fnv1a64(std::string_view(old).substr(0, 32)));
  std::memcpy(old.data() + 32, &checksum, 8);
  return old;
}

// Returns bytes with the checksum made again after an edit.
std::string Resealed(std::string bytes) {
  const uint64_t checksum = Fnv1a64(std::string_view(bytes).substr(40), Fnv1a64(std::string_view(bytes).substr(0, 32)));
  std::memcpy(bytes.data() + 32, &checksum, 8);
  return bytes;
}

TEST(ShardTest, ASmallerBoardsSamplesKeepTheirSize) {
  Shard shard;
  shard.games = 1;
  const Position six = Position::Start(StartKind::kScrambled, 6);
  Sample s;
  s.black = six.pieces(kBlack);
  s.white = six.pieces(kWhite);
  s.flags = kFullSearch | SizeFlags(6);
  MoveList moves;
  six.GenerateMoves(moves);
  shard.Add(s, {{moves[0].PolicyIndex(), 1.0f}});
  EXPECT_EQ(shard.samples[0].size(), 6);
  const std::string path = TempPath("six.shard");
  WriteShard(path, shard);
  const std::string bytes = ReadFile(path);
  std::remove(path.c_str());
  const Shard back = ParseShard(bytes, "six.shard");
  EXPECT_EQ(back.samples[0].position(), six);
  EXPECT_EQ(Sample().size(), 8);  // a shard from before sizes: flags bits 3-4 clear
  // A size code past 6x6, or a piece off the board of the sample's size, is malformed.
  const size_t flags_at = 40 + 17;
  std::string bad = bytes;
  bad[flags_at] = char(kFullSearch | (3 << kSizeShift));
  EXPECT_NE(ShardError(Resealed(bad)).find("malformed sample"), std::string::npos);
  bad = bytes;
  bad[7 + 40] = char(0x80);  // black on h8 (square 63): off the 6x6 board
  EXPECT_NE(ShardError(Resealed(bad)).find("malformed sample"), std::string::npos);
}

TEST(ShardTest, RepliesRoundTripAndOlderVersionsHaveNone) {
  const Shard shard = MakeShard(2);
  const std::string bytes = SerializeShard(shard);
  const Shard back = ParseShard(bytes, "v4.shard");
  EXPECT_EQ(back.samples[0].reply, shard.samples[0].reply);
  EXPECT_NE(back.samples[3].reply, kNoReply);
  EXPECT_EQ(back.samples[4].reply, kNoReply);  // the game's last sample

  const Shard v3 = ParseShard(AsVersion(bytes, shard, 3), "v3.shard");
  ASSERT_EQ(v3.samples.size(), shard.samples.size());
  for (const Sample& s : v3.samples) EXPECT_EQ(s.reply, kNoReply);
  EXPECT_EQ(v3.samples[7].position(), shard.samples[7].position());
  EXPECT_EQ(v3.finals.size(), 2u);
  EXPECT_EQ(v3.policy[v3.samples[7].policy_offset].index, shard.policy[shard.samples[7].policy_offset].index);

  // A reply outside the policy's range is damage.
  Shard bad = MakeShard(1);
  bad.samples[0].reply = kPolicySize;
  EXPECT_NE(ShardError(SerializeShard(bad)).find("reply out of range"), std::string::npos);
}

TEST(ShardTest, FieldsRoundTripAndOlderVersionsHaveNone) {
  // A new target's data: a field of some samples, NaN for the others.
  Shard shard = MakeShard(2);
  shard.SetField("short_value", 3, 0.5f);
  shard.SetField("short_value", 7, -0.25f);
  shard.SetField("z9", 0, 2.0f);
  EXPECT_THROW(shard.SetField("Bad-Name", 0, 1.0f), Error);
  const std::string path = TempPath("fields.shard");
  WriteShard(path, shard);
  const Shard back = ReadShard(path);
  ASSERT_EQ(back.fields.size(), 2u);
  ASSERT_EQ(back.fields.at("short_value").size(), back.samples.size());
  EXPECT_EQ(back.Field("short_value", back.samples[3]), 0.5f);
  EXPECT_EQ(back.Field("short_value", back.samples[7]), -0.25f);
  EXPECT_TRUE(std::isnan(back.Field("short_value", back.samples[8])));
  EXPECT_EQ(back.Field("z9", back.samples[0]), 2.0f);
  EXPECT_TRUE(std::isnan(back.Field("absent", back.samples[0])));
  EXPECT_EQ(SerializeShard(back), SerializeShard(shard));
  std::remove(path.c_str());

  // A sample copied into another shard keeps its fields.
  Shard copy;
  copy.games = shard.games;
  copy.AddFrom(shard, 7, shard.samples[7]);
  EXPECT_EQ(copy.Field("short_value", copy.samples[0]), -0.25f);
  EXPECT_EQ(copy.policy.size(), size_t(shard.samples[7].num_policy));

  // Version 4 has none; damage in a field is named.
  const Shard plain = MakeShard(2);
  EXPECT_TRUE(ParseShard(AsVersion(SerializeShard(plain), plain, 4), "v4.shard").fields.empty());
  std::string bytes = SerializeShard(shard);
  const size_t name_at =
      bytes.size() - 2 * (shard.samples.size() * 4) - std::string("z9").size() - 1 - std::string("short_value").size();
  ASSERT_EQ(bytes.substr(name_at, 11), "short_value");
  bytes[name_at] = 'S';
  EXPECT_NE(ShardError(Resealed(bytes)).find("malformed or repeated field name"), std::string::npos);
  bytes = SerializeShard(shard);
  bytes.resize(bytes.size() - 4);
  uint64_t payload = bytes.size() - 40;
  std::memcpy(bytes.data() + 24, &payload, 8);
  EXPECT_NE(ShardError(Resealed(bytes)).find("truncated"), std::string::npos);
  bytes = SerializeShard(shard) + "xxxx";
  payload = bytes.size() - 40;
  std::memcpy(bytes.data() + 24, &payload, 8);
  EXPECT_NE(ShardError(Resealed(bytes)).find("after its last field"), std::string::npos);
}

TEST(ShardTest, FinalBoardsRoundTripAndOlderVersionsHaveNone) {
  Shard shard = MakeShard(2);
  const Position after = RandomPositions(1, 5)[0];
  shard.finals = {{after.pieces(kBlack), after.pieces(kWhite)}, {}};  // the second unknown
  const std::string bytes = SerializeShard(shard);
  const Shard back = ParseShard(bytes, "v3.shard");
  ASSERT_EQ(back.finals.size(), 2u);
  EXPECT_EQ(back.FinalOf(back.samples[0]).black, after.pieces(kBlack));
  EXPECT_EQ(back.FinalOf(back.samples[0]).white, after.pieces(kWhite));
  EXPECT_TRUE(back.FinalOf(back.samples[0]).known());
  EXPECT_FALSE(back.FinalOf(back.samples[5]).known());  // game 1's

  // The same shard as version 2 wrote it: no final boards.
  const Shard old = ParseShard(AsVersion(bytes, shard, 2), "v2.shard");
  EXPECT_TRUE(old.finals.empty());
  EXPECT_FALSE(old.FinalOf(old.samples[0]).known());
  ASSERT_EQ(old.samples.size(), shard.samples.size());
  EXPECT_EQ(old.samples[7].position(), shard.samples[7].position());
  EXPECT_EQ(old.policy[old.samples[7].policy_offset].index, shard.policy[shard.samples[7].policy_offset].index);

  // A final board with a square of both colours is damage.
  Shard bad = MakeShard(1);
  bad.finals = {{1, 1}};
  EXPECT_THROW(ParseShard(SerializeShard(bad), "bad.shard"), Error);
}

TEST(ShardTest, CorruptionIsAnErrorNamingTheFile) {
  const std::string bytes = SerializeShard(MakeShard(2));
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  std::string bad_version = bytes;
  bad_version[8] = 99;
  for (const std::string& corrupt :
       {bytes.substr(0, bytes.size() - 3), flipped, bad_magic, bad_version, std::string("short")}) {
    try {
      ParseShard(corrupt, "selfplay/w_000001.shard");
      ADD_FAILURE() << "a corrupt shard was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("selfplay/w_000001.shard"), std::string::npos) << e.what();
    }
  }
}

TEST(ShardTest, TheChecksumCoversTheHeader) {
  const std::string bytes = SerializeShard(MakeShard(2));
  EXPECT_EQ(ShardError(bytes), "");
  // Games 2 -> 3 and a final board more: in range and consistent, but the
  // checksum says no.
  std::string more_games = bytes + std::string(16, '\0');
  more_games[12] = 3;
  uint64_t payload_bytes;
  std::memcpy(&payload_bytes, more_games.data() + 24, 8);
  payload_bytes += 16;
  std::memcpy(more_games.data() + 24, &payload_bytes, 8);
  EXPECT_NE(ShardError(more_games).find("checksum mismatch"), std::string::npos) << ShardError(more_games);
}

TEST(ShardTest, HeaderCountsAreRangeChecked) {
  const std::string bytes = SerializeShard(MakeShard(2));
  auto with_u32 = [&](size_t offset, uint32_t value) {
    std::string b = bytes;
    std::memcpy(b.data() + offset, &value, 4);
    return b;
  };
  for (const std::string& bad : {with_u32(12, 0xFFFFFFFFu), with_u32(12, 0), with_u32(16, 1u << 31)})
    EXPECT_NE(ShardError(bad).find("header out of range or inconsistent"), std::string::npos) << ShardError(bad);
  // The header-only count reads the whole file and checks it too.
  const std::string path = ::testing::TempDir() + "/loaz_bad_header.shard";
  WriteFileAtomic(path, with_u32(12, 0xFFFFFFFFu));
  EXPECT_THROW(ReadShardCounts(path), Error);
  WriteFileAtomic(path, bytes);
  EXPECT_EQ(ReadShardCounts(path).games, 2);
}

}  // namespace
}  // namespace loa::train
