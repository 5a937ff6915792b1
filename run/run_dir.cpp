#include "run/run_dir.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.h"

namespace loa::run {
namespace {

namespace fs = std::filesystem;

constexpr char kCheckpointPrefix[] = "ckpt_";
constexpr char kCheckpointSuffix[] = ".pt";
constexpr char kHeaderSuffix[] = ".json";
constexpr char kShardSuffix[] = ".shard";
constexpr char kRecordInfix[] = "_g";
constexpr char kRecordSuffix[] = ".txt";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Parses the digits of s[begin, end) as a non-negative number; -1 if not digits.
int64_t ParseDigits(const std::string& s, size_t begin, size_t end) {
  if (begin >= end) return -1;
  int64_t value = 0;
  for (size_t i = begin; i < end; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

// Returns WRITER_SEQ, the name of shard's files before their ends.
std::string ShardBase(const ShardName& shard) {
  char number[32];
  std::snprintf(number, sizeof number, "_%06" PRId64, shard.seq);
  return shard.writer + number;
}

// Returns the file names in dir (none if it does not exist).
std::vector<fs::directory_entry> Entries(const std::string& dir) {
  std::vector<fs::directory_entry> entries;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) entries.push_back(*it);
  return entries;
}

}  // namespace

RunDir::RunDir(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string RunDir::CheckpointPath(int64_t step) const {
  char name[64];
  std::snprintf(name, sizeof name, "%s%08" PRId64 "%s", kCheckpointPrefix, step, kCheckpointSuffix);
  return CheckpointDir() + "/" + name;
}

std::string RunDir::CheckpointHeaderPath(int64_t step) const {
  std::string path = CheckpointPath(step);
  return path.replace(path.size() - std::strlen(kCheckpointSuffix), std::string::npos, kHeaderSuffix);
}

bool RunDir::IsExportPath(const std::string& path) {
  const fs::path p(path);
  return !p.parent_path().filename().empty() && p.filename() == fs::path(RunDir(".").ExportPath()).filename();
}

std::vector<std::string> RunDir::WrittenFolders() const {
  std::vector<std::string> folders = {root_, CheckpointDir(), SelfplayDir(), GamesDir(), EvalDir(), WorkersDir()};
  for (const auto& entry : Entries(EvalGamesDir()))
    if (entry.is_directory()) folders.push_back(entry.path().string());
  return folders;
}

std::string RunDir::ShardPath(const ShardName& shard) const {
  return SelfplayDir() + "/" + ShardBase(shard) + kShardSuffix;
}

std::string RunDir::GameRecordPath(const ShardName& shard, int game) const {
  return GamesDir() + "/" + ShardBase(shard) + kRecordInfix + std::to_string(game) + kRecordSuffix;
}

std::string WriterName(const std::string& process, int worker) { return process + "-w" + std::to_string(worker); }

std::optional<std::string> ProcessOfWriter(const std::string& writer) {
  const size_t at = writer.rfind("-w");
  if (at == std::string::npos || at == 0 || at + 2 == writer.size() ||
      !std::all_of(writer.begin() + at + 2, writer.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return writer.substr(0, at);
}

std::optional<ShardName> ShardOfFile(const std::string& name) {
  std::string base;
  if (EndsWith(name, kShardSuffix)) {
    base = name.substr(0, name.size() - std::strlen(kShardSuffix));
  } else if (EndsWith(name, kRecordSuffix)) {
    const size_t game = name.rfind(kRecordInfix);
    if (game == std::string::npos ||
        ParseDigits(name, game + std::strlen(kRecordInfix), name.size() - std::strlen(kRecordSuffix)) < 0)
      return std::nullopt;
    base = name.substr(0, game);
  } else {
    return std::nullopt;
  }
  const size_t cut = base.rfind('_');
  if (cut == std::string::npos || cut == 0) return std::nullopt;
  const int64_t seq = ParseDigits(base, cut + 1, base.size());
  if (seq < 0) return std::nullopt;
  return ShardName{base.substr(0, cut), seq};
}

void RunDir::Create() const {
  for (const std::string& dir : {root_, CheckpointDir(), SelfplayDir(), GamesDir(), EvalDir(), WorkersDir()}) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) throw IoError(dir + ": cannot create folder: " + error.message());
  }
}

bool RunDir::Exists() const { return fs::exists(ConfigPath()); }

void RunDir::CheckHoldsRun(const std::string& named) const {
  std::error_code error;
  if (!fs::is_directory(root_, error)) throw Error(named + root_ + ": not a run directory (no such folder)");
  if (!fs::exists(fs::symlink_status(ConfigPath(), error)) && ListCheckpoints().empty())
    throw Error(named + root_ + ": not a run directory (no config.yaml)");
}

std::vector<int64_t> RunDir::ListCheckpoints() const {
  std::vector<int64_t> steps;
  const std::string prefix = kCheckpointPrefix, suffix = kCheckpointSuffix;
  for (const auto& entry : Entries(CheckpointDir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !EndsWith(name, suffix)) continue;
    const int64_t step = ParseDigits(name, prefix.size(), name.size() - suffix.size());
    if (step >= 0) steps.push_back(step);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

std::vector<ShardFile> RunDir::ListShards() const {
  std::vector<ShardFile> shards;
  for (const auto& entry : Entries(SelfplayDir())) {
    const std::string name = entry.path().filename().string();
    if (!EndsWith(name, kShardSuffix)) continue;  // skips NAME.shard.tmp.HOST.PID.SEQ
    std::error_code error;
    const auto time = entry.last_write_time(error);
    if (error) continue;  // removed meanwhile
    shards.push_back({name, entry.path().string(),
                      int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count())});
  }
  std::sort(shards.begin(), shards.end(), [](const ShardFile& a, const ShardFile& b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.name < b.name;
  });
  return shards;
}

int64_t RunDir::NextShardSeq(const std::string& writer) const {
  int64_t next = 0;
  for (const auto& entry : Entries(SelfplayDir())) {
    const std::string name = entry.path().filename().string();
    const std::optional<ShardName> shard = ShardOfFile(name);
    if (shard && shard->writer == writer && EndsWith(name, kShardSuffix)) next = std::max(next, shard->seq + 1);
  }
  return next;
}

}  // namespace loa::run
