#pragma once
// The run directory (docs/DESIGN.md, Run directory): the interface between the
// parts of a run, which may be separate processes on separate machines.
//
//   config.yaml      the resolved config; resume reads it
//   checkpoints/     ckpt_STEP.pt (zero-padded step, so names sort)
//   selfplay/        replay shards WRITER_SEQ.shard
//   games/           game records WRITER_SEQ_GAME.txt
//   eval/            match results, ratings table, plots
//   metrics.jsonl    one JSON object per event
//   log.txt

#include <cstdint>
#include <string>
#include <vector>

namespace loa::train {

// A shard file as listed in the selfplay folder.
struct ShardFile {
  std::string name;      // file name, e.g. "main-w0_000012.shard"
  int64_t mtime_ns = 0;  // modification time, the order of the window
};

// Paths and listings of one run directory. Threads: any, at once (it holds
// only the root path; listings read the file system as it is). Lifetimes:
// a value, copied freely; users that keep a reference (SelfPlay, Trainer)
// need it to outlive them.
class RunDir {
 public:
  explicit RunDir(std::string root);

  const std::string& root() const { return root_; }
  std::string ConfigPath() const { return root_ + "/config.yaml"; }
  std::string CheckpointDir() const { return root_ + "/checkpoints"; }
  std::string SelfplayDir() const { return root_ + "/selfplay"; }
  std::string GamesDir() const { return root_ + "/games"; }
  std::string EvalDir() const { return root_ + "/eval"; }
  std::string MetricsPath() const { return root_ + "/metrics.jsonl"; }
  std::string LogPath() const { return root_ + "/log.txt"; }

  // Returns checkpoints/ckpt_STEP.pt.
  std::string CheckpointPath(int64_t step) const;
  // Returns selfplay/WRITER_SEQ.shard.
  std::string ShardPath(const std::string& writer, int64_t seq) const;

  // Creates the root and every subfolder; throws IoError naming a folder
  // that cannot be created.
  void Create() const;
  // Returns whether config.yaml exists.
  bool Exists() const;

  // Returns the steps of the checkpoint files, ascending.
  std::vector<int64_t> ListCheckpoints() const;
  // Returns the shard files, oldest first (modification time, then name);
  // temporary files of unfinished writes are not listed.
  std::vector<ShardFile> ListShards() const;
  // Returns the next sequence number for `writer`: one past its highest shard.
  int64_t NextShardSeq(const std::string& writer) const;

 private:
  std::string root_;
};

}  // namespace loa::train
