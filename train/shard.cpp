#include "train/shard.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/file_util.h"
#include "core/hash.h"

namespace loa::train {
namespace {

constexpr size_t kHeaderBytes = 40;
// The header bytes before the checksum, which version 2 covers too.
constexpr size_t kCheckedHeaderBytes = 32;
// Bounds of a header's counts: far beyond what a writer makes
// (selfplay.games_per_shard <= 100,000), so that only damage meets them.
constexpr uint32_t kMaxShardGames = 100000;
constexpr uint32_t kMaxShardSamples = 1u << 26;
constexpr size_t kRecordBytes = 32;
constexpr size_t kEntryBytes = 4;
constexpr size_t kFinalBytes = 16;
constexpr size_t kReplyBytes = 2;
constexpr size_t kMaxFieldName = 64;
constexpr uint32_t kMaxFields = 64;

template <typename T>
void Put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian hosts only (x86, arm64)
  out.append(bytes, sizeof(T));
}

// Reads little-endian values from a byte range, throwing on overrun.
class Cursor {
 public:
  Cursor(const std::string& bytes, size_t offset, const std::string& name)
      : bytes_(bytes), offset_(offset), name_(name) {}
  template <typename T>
  T Get() {
    if (offset_ + sizeof(T) > bytes_.size()) throw Error(name_ + ": truncated replay shard");
    T value;
    std::memcpy(&value, bytes_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }
  bool AtEnd() const { return offset_ == bytes_.size(); }
  size_t Left() const { return bytes_.size() - offset_; }

 private:
  const std::string& bytes_;
  size_t offset_;
  const std::string& name_;
};

struct Header {
  uint32_t version = 0, games = 0, samples = 0, entries = 0;
  uint64_t payload_bytes = 0, checksum = 0;
};

// The bytes of the final boards: version 3 has one per game.
uint64_t FinalsBytes(const Header& h) { return h.version >= 3 ? uint64_t(h.games) * kFinalBytes : 0; }
// The bytes of the replies: version 4 has one per sample.
uint64_t RepliesBytes(const Header& h) { return h.version >= 4 ? uint64_t(h.samples) * kReplyBytes : 0; }
// The least bytes of the fields: version 5 has their count.
uint64_t FieldsBytes(const Header& h) { return h.version >= 5 ? sizeof(uint32_t) : 0; }

bool IsFieldName(const std::string& name) {
  if (name.empty() || name.size() > kMaxFieldName) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

Header ParseHeader(const std::string& bytes, const std::string& name) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kShardMagic, sizeof kShardMagic) != 0)
    throw Error(name + ": not a replay shard (bad magic or shorter than its header)");
  Cursor in(bytes, sizeof kShardMagic, name);
  Header h;
  h.version = in.Get<uint32_t>();
  if (h.version < 1 || h.version > kShardVersion)
    throw Error(name + ": replay shard version " + std::to_string(h.version) + ", this build reads versions 1 to " +
                std::to_string(kShardVersion));
  h.games = in.Get<uint32_t>();
  h.samples = in.Get<uint32_t>();
  h.entries = in.Get<uint32_t>();
  h.payload_bytes = in.Get<uint64_t>();
  h.checksum = in.Get<uint64_t>();
  // The fields (version 5) make the payload longer than the rest; their
  // parse ends exactly at the payload's end.
  const uint64_t fixed = uint64_t(h.samples) * kRecordBytes + FinalsBytes(h) + RepliesBytes(h) +
                         uint64_t(h.entries) * kEntryBytes + FieldsBytes(h);
  if (h.games == 0 || h.games > kMaxShardGames || h.samples > kMaxShardSamples ||
      uint64_t(h.entries) > uint64_t(h.samples) * 255 ||
      (h.version >= 5 ? h.payload_bytes < fixed : h.payload_bytes != fixed))
    throw Error(name + ": replay shard header out of range or inconsistent (games " + std::to_string(h.games) +
                ", samples " + std::to_string(h.samples) + ")");
  return h;
}

// Returns the checksum of a whole shard file's bytes as its header's version
// computes it: version 2 over the header (but the checksum) and the payload,
// version 1 over the payload alone.
uint64_t Checksum(const Header& h, std::string_view bytes) {
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (h.version == 1) return Fnv1a64(payload);
  return Fnv1a64(payload, Fnv1a64(bytes.substr(0, kCheckedHeaderBytes)));
}

// Parses the header of a whole file's bytes and checks its size and checksum.
Header CheckedHeader(const std::string& bytes, const std::string& name) {
  const Header h = ParseHeader(bytes, name);
  if (bytes.size() != kHeaderBytes + h.payload_bytes)
    throw Error(name + ": truncated replay shard (" + std::to_string(bytes.size()) + " bytes, header says " +
                std::to_string(kHeaderBytes + h.payload_bytes) + ")");
  if (Checksum(h, bytes) != h.checksum) throw Error(name + ": replay shard checksum mismatch (corrupt file)");
  return h;
}

// Reads the fields of a version 5 payload (after the policy entries).
void ParseFields(Cursor& in, const Header& h, const std::string& name, Shard* shard) {
  const uint32_t count = in.Get<uint32_t>();
  if (count > kMaxFields) throw Error(name + ": replay shard holds " + std::to_string(count) + " fields");
  for (uint32_t f = 0; f < count; ++f) {
    std::string field(in.Get<uint8_t>(), '\0');
    for (char& c : field) c = char(in.Get<uint8_t>());
    if (!IsFieldName(field) || shard->fields.count(field))
      throw Error(name + ": replay shard holds a malformed or repeated field name");
    if (in.Left() < uint64_t(h.samples) * sizeof(float)) throw Error(name + ": truncated replay shard");
    std::vector<float>& values = shard->fields[field];
    values.resize(h.samples);
    for (float& v : values) v = in.Get<float>();
  }
}

}  // namespace

float Shard::Field(const std::string& name, const Sample& s) const {
  const auto it = fields.find(name);
  if (it == fields.end()) return std::nanf("");
  const size_t i = size_t(&s - samples.data());
  assert(i < samples.size());
  return i < it->second.size() ? it->second[i] : std::nanf("");
}

void Shard::SetField(const std::string& name, size_t i, float value) {
  if (!IsFieldName(name)) throw Error("replay shard field name '" + name + "': not [a-z0-9_], 1 to 64 characters");
  assert(i < samples.size());
  std::vector<float>& values = fields[name];
  if (values.size() <= i) values.resize(samples.size(), std::nanf(""));
  values[i] = value;
}

void Shard::AddFrom(const Shard& from, size_t i, Sample sample) {
  const uint32_t offset = uint32_t(policy.size());
  policy.insert(policy.end(), from.policy.begin() + sample.policy_offset,
                from.policy.begin() + sample.policy_offset + sample.num_policy);
  sample.policy_offset = offset;
  samples.push_back(sample);
  for (const auto& [name, values] : from.fields)
    if (i < values.size()) SetField(name, samples.size() - 1, values[i]);
}

void Shard::Add(Sample sample, const std::vector<std::pair<int, float>>& target) {
  sample.policy_offset = uint32_t(policy.size());
  int count = 0;
  for (const auto& [index, prob] : target) {
    assert(index >= 0 && index < kPolicySize);
    const long quantised = std::lround(double(prob) * kProbScale);
    if (quantised <= 0) continue;
    policy.push_back({uint16_t(index), uint16_t(std::min(quantised, long(kProbScale)))});
    ++count;
  }
  assert(count <= 255);
  sample.num_policy = uint8_t(count);
  samples.push_back(sample);
}

std::string SerializeShard(const Shard& shard) {
  // A game without a final board (read from an older version) is written
  // with a board of no pieces: no ownership target.
  assert(shard.finals.size() <= size_t(shard.games));
  std::string payload;
  payload.reserve(shard.samples.size() * (kRecordBytes + kReplyBytes) + size_t(shard.games) * kFinalBytes +
                  shard.policy.size() * kEntryBytes);
  for (const Sample& s : shard.samples) {
    Put(payload, s.black);
    Put(payload, s.white);
    Put(payload, s.side_to_move);
    Put(payload, s.flags);
    Put(payload, s.outcome);
    Put(payload, s.num_policy);
    Put(payload, s.root_value);
    Put(payload, s.plies_left);
    Put(payload, s.game);
    Put(payload, s.ply);
  }
  for (int g = 0; g < shard.games; ++g) {
    const FinalBoard board = size_t(g) < shard.finals.size() ? shard.finals[size_t(g)] : FinalBoard{};
    Put(payload, board.black);
    Put(payload, board.white);
  }
  for (const Sample& s : shard.samples) Put(payload, s.reply);
  for (const Sample& s : shard.samples)
    for (int i = 0; i < s.num_policy; ++i) {
      Put(payload, shard.policy[s.policy_offset + i].index);
      Put(payload, shard.policy[s.policy_offset + i].prob);
    }
  assert(shard.fields.size() <= kMaxFields);
  Put(payload, uint32_t(shard.fields.size()));
  for (const auto& [name, values] : shard.fields) {
    assert(IsFieldName(name));
    Put(payload, uint8_t(name.size()));
    payload += name;
    for (size_t i = 0; i < shard.samples.size(); ++i) Put(payload, i < values.size() ? values[i] : std::nanf(""));
  }
  std::string out(kShardMagic, sizeof kShardMagic);
  Put(out, kShardVersion);
  Put(out, uint32_t(shard.games));
  Put(out, uint32_t(shard.samples.size()));
  uint32_t entries = 0;
  for (const Sample& s : shard.samples) entries += s.num_policy;
  Put(out, entries);
  Put(out, uint64_t(payload.size()));
  Put(out, Fnv1a64(payload, Fnv1a64(out)));
  return out + payload;
}

Shard ParseShard(const std::string& bytes, const std::string& name) {
  const Header h = CheckedHeader(bytes, name);
  Shard shard;
  shard.games = int(h.games);
  shard.samples.resize(h.samples);
  Cursor in(bytes, kHeaderBytes, name);
  uint64_t entries = 0;
  for (Sample& s : shard.samples) {
    s.black = in.Get<uint64_t>();
    s.white = in.Get<uint64_t>();
    s.side_to_move = in.Get<uint8_t>();
    s.flags = in.Get<uint8_t>();
    s.outcome = in.Get<int8_t>();
    s.num_policy = in.Get<uint8_t>();
    s.root_value = in.Get<float>();
    s.plies_left = in.Get<uint16_t>();
    s.game = in.Get<uint16_t>();
    s.ply = in.Get<uint32_t>();
    s.policy_offset = uint32_t(entries);
    entries += s.num_policy;
    if ((s.black & s.white) || s.side_to_move > 1 || (s.flags & kSizeMask) > SizeFlags(kMinBoardSize) ||
        ((s.black | s.white) & ~BoardMask(s.size())) || s.outcome < -1 || s.outcome > 1 || s.game >= h.games ||
        !(std::fabs(s.root_value) <= 1.0f))
      throw Error(name + ": replay shard holds a malformed sample");
  }
  if (entries != h.entries) throw Error(name + ": replay shard policy entries disagree with its header");
  if (h.version >= 3) {
    shard.finals.resize(h.games);
    for (FinalBoard& board : shard.finals) {
      board.black = in.Get<uint64_t>();
      board.white = in.Get<uint64_t>();
      if (board.black & board.white) throw Error(name + ": replay shard holds a malformed final board");
    }
  }
  if (h.version >= 4)
    for (Sample& s : shard.samples) {
      s.reply = in.Get<uint16_t>();
      if (s.reply >= kPolicySize && s.reply != kNoReply)
        throw Error(name + ": replay shard holds a reply out of range");
    }
  shard.policy.resize(entries);
  for (PolicyEntry& e : shard.policy) {
    e.index = in.Get<uint16_t>();
    e.prob = in.Get<uint16_t>();
    if (e.index >= kPolicySize) throw Error(name + ": replay shard holds a policy index out of range");
  }
  if (h.version >= 5) ParseFields(in, h, name, &shard);
  if (!in.AtEnd()) throw Error(name + ": replay shard holds bytes after its last field");
  return shard;
}

void WriteShard(const std::string& path, const Shard& shard) { WriteFileAtomic(path, SerializeShard(shard)); }

Shard ReadShard(const std::string& path) { return ParseShard(ReadFile(path), path); }

ShardCounts ReadShardCounts(const std::string& path) {
  const Header h = CheckedHeader(ReadFile(path), path);
  return {int64_t(h.games), int64_t(h.samples)};
}

}  // namespace loa::train
