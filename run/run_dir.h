#pragma once
// The run directory (docs/DESIGN.md, Run directory): the interface between the
// parts of a run, which may be separate processes on separate machines.
//
//   config.yaml      the resolved config; resume reads it
//   state.json       whether the run is running, finished or stopped (run/run_state.h)
//   checkpoints/     ckpt_STEP.pt (zero-padded step, so names sort) and its
//                    header ckpt_STEP.json (run/checkpoints.h)
//   selfplay/        replay shards WRITER_SEQ.shard
//   games/           game records WRITER_SEQ_gK.txt (K: the game in its shard)
//   workers/         one heartbeat a self-play process, NAME.json (run/workers.h)
//   trainer.json     the trainer's heartbeat (run/workers.h)
//   eval/            matches.jsonl, ratings.txt and .json, games/ (match records)
//   cluster/         the batch scripts of a run on a cluster (`loaz launch`)
//   exam/            positions.txt: `loaz exam`'s proven positions (play/exam.h)
//   metrics.jsonl    one JSON object per event
//   log.txt          the human-readable log
//   net.safetensors  the export of a finished run
//   FORK.txt         a fork's origin
//
// Every name of a file or folder of a run is spelled here and only here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loa::run {

// A self-play shard: its writer (a process's worker, "main-w0") and its
// sequence number. Its file is selfplay/WRITER_SEQ.shard (SEQ of six digits
// or more), the records of its games games/WRITER_SEQ_gK.txt.
struct ShardName {
  std::string writer;
  int64_t seq = 0;
  bool operator<(const ShardName& o) const { return writer != o.writer ? writer < o.writer : seq < o.seq; }
  bool operator==(const ShardName& o) const { return writer == o.writer && seq == o.seq; }
};

// The writer name of worker `worker` of self-play process `process`:
// "NAME-wK" ("main-w0"). Every process's shards carry its name, so the
// processes of a run on several machines never write the same file.
std::string WriterName(const std::string& process, int worker);

// Returns the process of a writer name WriterName wrote ("main" of
// "main-w0"), or nothing for any other name.
std::optional<std::string> ProcessOfWriter(const std::string& writer);

// Returns the shard a file of selfplay/ or games/ belongs to, from its name
// ("main-w0_000012.shard", "main-w0_000012_g3.txt"), or nullopt for any
// other name (a temporary file of a write cut short among them).
std::optional<ShardName> ShardOfFile(const std::string& file_name);

// A shard file as listed in the selfplay folder.
struct ShardFile {
  std::string name;      // file name, e.g. "main-w0_000012.shard"
  std::string path;      // selfplay/NAME under the run's root
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
  std::string StatePath() const { return root_ + "/state.json"; }
  std::string ExportPath() const { return root_ + "/net.safetensors"; }
  std::string ForkNotePath() const { return root_ + "/FORK.txt"; }
  std::string WorkersDir() const { return root_ + "/workers"; }
  // Returns trainer.json, the trainer's heartbeat (run/workers.h).
  std::string TrainerBeatPath() const { return root_ + "/trainer.json"; }
  std::string ClusterDir() const { return root_ + "/cluster"; }
  // exam/positions.txt: `loaz exam`'s set of proven positions (docs/TRAINING.md).
  std::string ExamSetPath() const { return root_ + "/exam/positions.txt"; }
  // Returns cluster/PART.sbatch, a batch script of `loaz launch`.
  std::string ClusterScriptPath(const std::string& part) const { return ClusterDir() + "/" + part + ".sbatch"; }
  // Returns cluster/jobs, the job ids of the last launch.
  std::string ClusterJobsPath() const { return ClusterDir() + "/jobs"; }
  // Returns cluster/logs/, the jobs' output.
  std::string ClusterLogDir() const { return ClusterDir() + "/logs"; }
  std::string MatchesPath() const { return EvalDir() + "/matches.jsonl"; }
  std::string RatingsPath() const { return EvalDir() + "/ratings.json"; }
  std::string RatingsTablePath() const { return EvalDir() + "/ratings.txt"; }
  std::string EvalGamesDir() const { return EvalDir() + "/games"; }
  // Returns where the records of the match `pair` go: eval/games/PAIR.
  std::string EvalMatchDir(const std::string& pair) const { return EvalGamesDir() + "/" + pair; }
  // Returns workers/NAME.json, the heartbeat of self-play process NAME.
  std::string WorkerPath(const std::string& name) const { return WorkersDir() + "/" + name + ".json"; }
  // Returns games/NAME, the self-play game record of that file name.
  std::string GameRecordPath(const std::string& name) const { return GamesDir() + "/" + name; }
  // Returns games/WRITER_SEQ_gK.txt, the record of game K of shard.
  std::string GameRecordPath(const ShardName& shard, int game) const;

  // Returns whether path names a run's export (a folder's net.safetensors).
  static bool IsExportPath(const std::string& path);

  // Returns checkpoints/ckpt_STEP.pt.
  std::string CheckpointPath(int64_t step) const;
  // Returns checkpoints/ckpt_STEP.json, the checkpoint's header.
  std::string CheckpointHeaderPath(int64_t step) const;
  // Returns checkpoints/damaged/, where a resume sets damaged checkpoints aside.
  std::string DamagedCheckpointDir() const { return CheckpointDir() + "/damaged"; }
  // Returns every folder whose temporary files of cut-short writes a
  // restart removes: the root and its folders, and each match's records.
  std::vector<std::string> WrittenFolders() const;
  // Returns selfplay/WRITER_SEQ.shard.
  std::string ShardPath(const ShardName& shard) const;
  // Returns selfplay/NAME, the shard file of that name.
  std::string ShardFilePath(const std::string& name) const { return SelfplayDir() + "/" + name; }

  // Creates the root and every subfolder; throws IoError naming a folder
  // that cannot be created.
  void Create() const;
  // Returns whether config.yaml exists.
  bool Exists() const;
  // Throws Error naming the folder (after `named`, e.g. "--run ") unless
  // it holds a run: config.yaml, or checkpoints (whose headers keep a copy
  // of a config that is gone).
  void CheckHoldsRun(const std::string& named = "") const;

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

}  // namespace loa::run
