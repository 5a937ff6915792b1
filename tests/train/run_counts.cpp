// run_counts DIR: prints what a run directory holds, for the process-level
// tests of consistency after a kill (end_to_end_test.sh):
//   shard_games N      games in the shards that read (checksums checked)
//   record_games N     self-play game records
//   metrics_games N    the sum of shard_games over selfplay events
//   bad_shards N       shards that do not read
//   temp_files N       temporary files of unfinished writes, in any folder
// Exit code 1 when DIR cannot be read.

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
  if (argc != 2) {
    std::fprintf(stderr, "usage: run_counts DIR\n");
    return 2;
  }
  const loa::run::RunDir run(argv[1]);
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
  return 0;
}
