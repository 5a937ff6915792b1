#include "train/fork.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_util.h"
#include "core/param_visitor.h"
#include "net/checkpoint.h"
#include "net/model.h"
#include "run/config.h"
#include "run/run_dir.h"
#include "train/checkpoint_store.h"
#include "train/evaluation.h"
#include "train/losses.h"
#include "train/shard.h"
#include "train/trainer.h"

namespace loa::train {
namespace fs = std::filesystem;
namespace {

// Puts `source` at `target`: a hard link, or a copy with the source's
// modification time (the replay window's order) where links cannot be made.
void LinkOrCopy(const fs::path& source, const fs::path& target) {
  std::error_code error;
  fs::create_hard_link(source, target, error);
  if (!error) return;
  fs::copy_file(source, target, error);
  if (!error) fs::last_write_time(target, fs::last_write_time(source, error), error);
  if (error) throw IoError(target.string() + ": cannot link or copy " + source.string() + ": " + error.message());
}

// Returns the lines of a text file, or none when it does not exist.
std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> lines;
  if (!fs::exists(path)) return lines;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// The fork's config: the source's with overrides, checked as a resume
// checks them, but for a net that grows (net.blocks, net.channels).
run::Config ForkConfig(const std::string& from, const run::RunDir& source, const std::vector<std::string>& overrides) {
  for (const std::string& o : overrides) {
    const std::optional<KeyValue> setting = SplitKeyValue(o);
    if (setting && (setting->key == "run.name" || setting->key == "run.directory"))
      throw Error("--set " + o + ": a fork's name and folder are --to's");
  }
  const run::Config saved = run::LoadConfig(source.ConfigPath());
  run::Config asked = run::LoadConfig(source.ConfigPath(), overrides);
  if (asked.net.blocks < saved.net.blocks || asked.net.channels < saved.net.channels)
    throw Error(from + ": a fork may grow the " + saved.net.ShortName() +
                " net (net.blocks, net.channels) but not shrink it to " + asked.net.ShortName());
  run::Config same_net = asked;
  same_net.net.blocks = saved.net.blocks;
  same_net.net.channels = saved.net.channels;
  const std::string conflict = run::ResumeConflict(saved, same_net);
  if (!conflict.empty())
    throw Error(from + ": a fork cannot change " + conflict +
                " (it goes on from the run's checkpoint; of the net only net.blocks and net.channels may grow)");
  return asked;
}

// Writes the fork's checkpoint of `step`: the source's net grown into
// config's deeper or wider one, with a fresh optimizer.
void WriteGrownCheckpoint(const std::string& source_path, const run::Config& config, const std::string& target_path) {
  LoaNet small(ReadCheckpointInfo(source_path).config);
  const TrainingState state = LoadCheckpoint(source_path, small, nullptr);  // the trained weights
  torch::manual_seed(uint64_t(config.run.seed) ^ uint64_t(state.step));
  LoaNet grown(config.net);
  GrowInto(small, grown);
  auto optimizer = MakeOptimizer(config.train, grown);
  LoaNet average{nullptr};
  if (config.train.average_steps > 0) {
    average = LoaNet(config.net);
    CopyWeights(grown, average);
  }
  SaveCheckpoint(target_path, grown, optimizer.get(), state, average ? &average : nullptr);
}

// Returns the shard files that the trainer had counted at the checkpoint:
// the oldest ones up to its games_seen counter, or, for a checkpoint
// without the counter, those written before it.
std::vector<run::ShardFile> ShardsSeen(const run::RunDir& source, const CheckpointInfo& info,
                                       const std::string& checkpoint) {
  std::vector<run::ShardFile> all = source.ListShards(), seen;
  const auto counter = info.state.counters.find(kGamesSeenCounter);
  if (counter == info.state.counters.end()) {
    const auto written = fs::last_write_time(checkpoint);
    for (const run::ShardFile& f : all)
      if (fs::last_write_time(f.path) <= written) seen.push_back(f);
    return seen;
  }
  int64_t games = 0;
  for (const run::ShardFile& f : all) {
    if (games >= counter->second) break;
    games += ReadShardCounts(f.path).games;
    seen.push_back(f);
  }
  return seen;
}

}  // namespace

ForkSummary ForkRun(const std::string& from, int64_t step, const std::string& to,
                    const std::vector<std::string>& overrides) {
  const run::RunDir source(from);
  source.CheckHoldsRun();
  if (fs::exists(to)) throw Error(to + " exists already; a fork goes into a new folder");
  run::Config config = ForkConfig(from, source, overrides);
  const fs::path target_path = fs::path(to).lexically_normal();
  config.run.name = target_path.filename().string();
  config.run.directory = target_path.has_parent_path() ? target_path.parent_path().string() : ".";

  const std::string checkpoint = ResolveReadableCheckpoint(source, step);
  const CheckpointInfo info = ReadCheckpointInfo(checkpoint);
  ForkSummary summary;
  summary.step = info.state.step;
  const auto elapsed = info.state.counters.find(run::kElapsedMsCounter);
  if (elapsed != info.state.counters.end()) summary.hours = double(elapsed->second) / 3.6e6;
  const bool grow = info.config.blocks != config.net.blocks || info.config.channels != config.net.channels;

  const std::string temporary = TempFileName(to);
  const run::RunDir fork(temporary);
  try {
    fork.Create();
    WriteFileAtomic(fork.ConfigPath(), run::ConfigToYaml(config));
    // Checkpoints.
    if (grow) {
      WriteGrownCheckpoint(checkpoint, config, fork.CheckpointPath(summary.step));
      summary.checkpoints = 1;
      summary.grown_from = info.config.ShortName();
      summary.grown_to = config.net.ShortName();
    } else {
      for (int64_t s : source.ListCheckpoints()) {
        if (s > summary.step) break;
        LinkOrCopy(source.CheckpointPath(s), fork.CheckpointPath(s));
        ++summary.checkpoints;
      }
    }
    WriteMissingCheckpointHeaders(fork, nullptr);
    // Replay shards and their game records.
    std::set<run::ShardName> kept;
    for (const run::ShardFile& f : ShardsSeen(source, info, checkpoint)) {
      LinkOrCopy(f.path, fork.ShardFilePath(f.name));
      summary.games += ReadShardCounts(f.path).games;
      if (const std::optional<run::ShardName> shard = run::ShardOfFile(f.name)) kept.insert(*shard);
      ++summary.shards;
    }
    std::error_code error;
    for (fs::directory_iterator it(source.GamesDir(), error), end; !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      const std::optional<run::ShardName> shard = run::ShardOfFile(name);
      if (shard && kept.count(*shard)) LinkOrCopy(it->path(), fork.GameRecordPath(name));
    }
    // Metrics up to the checkpoint's event, less the shards left behind;
    // evaluations of the checkpoints kept.
    std::vector<std::string> metrics;
    for (const std::string& line : Lines(source.MetricsPath())) {
      const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
      if (event.is_object() && event.value("event", "") == "selfplay" && event.contains("writer") &&
          event.contains("shard") && event["shard"].is_number_integer()) {
        if (!kept.count({event.value("writer", ""), event["shard"].get<int64_t>()})) continue;
      }
      metrics.push_back(line);
      if (event.is_object() && event.value("event", "") == "checkpoint" && event.value("step", -1) == summary.step)
        break;
    }
    WriteFileAtomic(fork.MetricsPath(), Joined(metrics));
    const std::vector<std::string> matches = MatchLinesUpTo(source, summary.step);
    if (!matches.empty()) WriteFileAtomic(fork.MatchesPath(), Joined(matches));
    char hours[32];
    std::snprintf(hours, sizeof hours, "%.4f", summary.hours);
    std::string note = "A fork of " + from + " at step " + std::to_string(summary.step) + " (" + checkpoint + "), " +
                       hours + " h of run time";
    for (const std::string& o : overrides) note += "\n  --set " + o;
    if (grow)
      note += "\nThe net grew from " + summary.grown_from + " to " + summary.grown_to + ": " + kGrowthNote + ".";
    WriteFileAtomic(fork.ForkNotePath(), note + "\n");
    fs::rename(temporary, to);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
    throw;
  }
  return summary;
}

}  // namespace loa::train
