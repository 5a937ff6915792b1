#pragma once
// Replay shards: the finished self-play games of one worker, as compact
// training samples in one binary file (docs/DESIGN.md, Data).
//
// Layout, little-endian:
//   header (40 bytes): magic "LOAZSHRD", u32 version, u32 games,
//     u32 samples, u32 policy entries, u64 payload bytes, u64 FNV-1a 64 of
//     the header's first 32 bytes and the payload (version 1: of the
//     payload alone; still read)
//   payload: samples x 32-byte fixed records, then (version 3) games x
//     16-byte final boards (u64 black, u64 white: each game's last
//     position, the ownership target), then (version 4) samples x u16:
//     the policy index of the opponent's reply (the move played next;
//     65535: none), then all policy entries (u16 policy index, u16
//     probability * 65535), sample by sample, then (version 5) the named
//     per-sample fields: u32 count, and for each (in name order) u8 name
//     length, the name ([a-z0-9_], 1 to 64 bytes), samples x f32.
// A fixed record: u64 black, u64 white, u8 side to move, u8 flags (bits 3-4:
// 8 minus the board's size; bit 5: the outcome is proven; bit 6: a search
// tree's proof, off the played line), i8
// outcome, u8 policy entries, f32 root value, u16 plies left, u16 game
// index in the shard, u32 ply of the game. Versions 1 to 4 are still read:
// their samples have no fields, those of versions 1 to 3 no reply target,
// and those of versions 1 and 2 no ownership target either.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/move.h"
#include "core/position.h"

namespace loa::train {

inline constexpr char kShardMagic[8] = {'L', 'O', 'A', 'Z', 'S', 'H', 'R', 'D'};
// Bump when the layout changes; readers reject other versions by name.
inline constexpr uint32_t kShardVersion = 5;

// Sample flags.
enum SampleFlags : uint8_t {
  kFullSearch = 1,    // from a full search (a policy target); always set today
  kGameCapped = 2,    // the game hit the move cap (adjudicated a draw)
  kGameResigned = 4,  // the outcome comes from a resignation
  // Bits 3-4: 8 minus the board's size (0: 8x8, as every shard before sizes;
  // 1: 7x7; 2: 6x6). SizeFlags and Sample::size() spell it.
  kSizeShift = 3,
  kSizeMask = 3 << kSizeShift,
  // The outcome is the solver's proven result for the side to move, not the
  // game's (selfplay.proof_nodes): the value's target, the root value's too.
  kProven = 1 << 5,
  // A position of a search tree that the MCTS-Solver proved, off the
  // played line (selfplay.tree_proofs): kProven with it, no kFullSearch, a
  // value target alone (no policy entries, no reply, no ownership).
  kTreeProof = 1 << 6,
};

// The flags bits of a board of size n.
constexpr uint8_t SizeFlags(int n) { return uint8_t((kBoardSize - n) << kSizeShift); }

// One entry of a sparse policy target.
struct PolicyEntry {
  uint16_t index;  // policy index, from * 8 + direction
  uint16_t prob;   // probability * kProbScale
};
inline constexpr float kProbScale = 65535.0f;
// Sample::reply of a sample without one (the game's last move, a pass next,
// or a shard older than version 4).
inline constexpr uint16_t kNoReply = 0xFFFF;

// One position of a self-play game and its training targets, seen from the
// side to move there.
struct Sample {
  uint64_t black = 0, white = 0;
  uint8_t side_to_move = 0;  // Color
  uint8_t flags = 0;
  int8_t outcome = 0;       // +1 win, 0 draw, -1 loss for the side to move (proven if kProven)
  uint8_t num_policy = 0;   // entries in the policy target
  float root_value = 0;     // the search's root value, win - loss, [-1, 1]
  uint16_t plies_left = 0;  // plies from here to the end of the game
  uint16_t game = 0;        // index of its game within the shard
  uint32_t ply = 0;         // ply of the game at this position
  // The policy index of the move the opponent played next (the opponent's
  // reply target, KataGo's auxiliary policy), or kNoReply.
  uint16_t reply = kNoReply;
  uint32_t policy_offset = 0;  // first entry in the shard's policy array

  // Returns the board's size (flags bits 3-4) and the position (without history).
  int size() const { return kBoardSize - ((flags & kSizeMask) >> kSizeShift); }
  Position position() const { return Position(black, white, Color(side_to_move), size()); }
};

// The pieces on the board where a game ended (or was resigned); a board of
// no pieces stands for an unknown one.
struct FinalBoard {
  uint64_t black = 0, white = 0;
  bool known() const { return (black | white) != 0; }
};

// The contents of one shard in memory.
struct Shard {
  int games = 0;
  std::vector<Sample> samples;
  std::vector<PolicyEntry> policy;  // samples[i]'s entries start at policy_offset
  // One per game (finals[s.game] is sample s's), or empty: a shard of
  // version 1 or 2, whose samples have no ownership target.
  std::vector<FinalBoard> finals;

  // Per-sample values beyond the record, by name (version 5): the data of
  // a training target that the record lacks (train/training_targets.h),
  // each samples.size() floats, NaN where a sample has none. A reader keeps
  // every field a file holds, whether or not a target reads it.
  std::map<std::string, std::vector<float>> fields;

  // Returns the final board of sample s's game, unknown if the shard has none.
  FinalBoard FinalOf(const Sample& s) const { return s.game < finals.size() ? finals[s.game] : FinalBoard{}; }

  // Returns field `name` of s, one of this shard's samples; NaN when the
  // shard has no such field.
  float Field(const std::string& name, const Sample& s) const;
  // Sets field `name` of sample i (the field made, NaN for the others, if
  // the shard had none). Throws Error for a name outside [a-z0-9_]{1,64}.
  void SetField(const std::string& name, size_t i, float value);

  // Appends a sample and its policy target (probabilities over policy
  // indices, each quantised; entries of probability 0 are dropped).
  void Add(Sample sample, const std::vector<std::pair<int, float>>& target);
  // Appends `sample`, sample i of `from` as edited by the caller, with its
  // policy entries and fields as `from` has them (the games and final
  // boards are the caller's).
  void AddFrom(const Shard& from, size_t i, Sample sample);
};

// Returns the bytes of a shard file for shard.
std::string SerializeShard(const Shard& shard);

// Parses the bytes of a shard file; `name` (the path) goes into messages.
// Throws loa::Error for a wrong magic or version, a truncated file, a
// checksum mismatch or a record out of range.
Shard ParseShard(const std::string& bytes, const std::string& name);

// Writes shard to path atomically (temporary name and rename).
void WriteShard(const std::string& path, const Shard& shard);

// Reads the shard at path; throws IoError or Error (see ParseShard).
Shard ReadShard(const std::string& path);

// The counts a shard's header gives.
struct ShardCounts {
  int64_t games = 0, samples = 0;
};

// Returns the counts of the shard at path from its header, once the
// checksum over the whole file says they can be trusted; throws as
// ReadShard does.
ShardCounts ReadShardCounts(const std::string& path);

}  // namespace loa::train
