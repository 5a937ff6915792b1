// run_counts DIR: prints what a run directory holds, for the process-level
// tests of consistency after a kill (end_to_end_test.sh):
//   shard_games N      games in the shards that read (checksums checked)
//   record_games N     self-play game records
//   metrics_games N    the sum of shard_games over selfplay events
//   bad_shards N       shards that do not read
//   temp_files N       temporary files of unfinished writes, in any folder
// Exit code 1 when DIR cannot be read; with --check also when shards, their
// events and the records disagree, there are no games, or a shard does not
// read or a temporary file stays (the consistency a kill must keep).

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/file_util.h"
#include "run/metrics.h"
#include "run/run_dir.h"
#include "train/shard.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const bool check = argc == 3 && std::string(argv[1]) == "--check";
  if (argc != 2 && !check) {
    std::fprintf(stderr, "usage: run_counts [--check] DIR\n");
    return 2;
  }
  const loa::run::RunDir run(argv[argc - 1]);
  if (!fs::is_directory(run.root())) {
    std::fprintf(stderr, "run_counts: %s is not a folder\n", argv[1]);
    return 1;
  }
  int64_t shard_games = 0, record_games = 0, metrics_games = 0, bad_shards = 0, temp_files = 0;
  for (const loa::run::ShardFile& f : run.ListShards()) {
    try {
      shard_games += loa::train::ReadShardCounts(run.SelfplayDir() + "/" + f.name).games;
    } catch (const loa::Error&) {
      ++bad_shards;
    }
  }
  for (const auto& entry : fs::directory_iterator(run.GamesDir())) record_games += entry.path().extension() == ".txt";
  for (const nlohmann::json& event : loa::run::ReadJsonLines(run.MetricsPath()))
    if (event.value("event", "") == "selfplay") metrics_games += event.value("shard_games", int64_t{0});
  for (const auto& entry : fs::recursive_directory_iterator(run.root()))
    temp_files += loa::TempFileOwner(entry.path().filename().string()).has_value();
  std::printf("shard_games %lld\nrecord_games %lld\nmetrics_games %lld\nbad_shards %lld\ntemp_files %lld\n",
              (long long)shard_games, (long long)record_games, (long long)metrics_games, (long long)bad_shards,
              (long long)temp_files);
  if (!check) return 0;
  const char* fault = shard_games == 0               ? "no games"
                      : shard_games != metrics_games ? "shards and their events disagree"
                      : shard_games != record_games  ? "records and games disagree"
                      : bad_shards + temp_files > 0  ? "bad shards or temporary files left"
                                                     : nullptr;
  if (fault) std::fprintf(stderr, "run_counts: %s: %s\n", run.root().c_str(), fault);
  return fault ? 1 : 0;
}
