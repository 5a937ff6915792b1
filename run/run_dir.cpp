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

std::string RunDir::ShardPath(const std::string& writer, int64_t seq) const {
  char number[32];
  std::snprintf(number, sizeof number, "_%06" PRId64, seq);
  return SelfplayDir() + "/" + writer + number + kShardSuffix;
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
    shards.push_back(
        {name, int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count())});
  }
  std::sort(shards.begin(), shards.end(), [](const ShardFile& a, const ShardFile& b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.name < b.name;
  });
  return shards;
}

int64_t RunDir::NextShardSeq(const std::string& writer) const {
  int64_t next = 0;
  const std::string prefix = writer + "_", suffix = kShardSuffix;
  for (const auto& entry : Entries(SelfplayDir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !EndsWith(name, suffix)) continue;
    const int64_t seq = ParseDigits(name, prefix.size(), name.size() - suffix.size());
    if (seq >= 0) next = std::max(next, seq + 1);
  }
  return next;
}

}  // namespace loa::run
