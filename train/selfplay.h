#pragma once
// The self-play workers: selfplay.workers threads, each advancing
// selfplay.games_per_worker games at once through the batched MCTS driver,
// all sharing one evaluator of the run's newest checkpoint. Finished games
// go to replay shards (selfplay/) and game records (games/).

#include <atomic>
#include <cstdint>
#include <string>

#include "mcts/selfplay_driver.h"

#include "run/config.h"
#include "run/run_context.h"
#include "run/run_dir.h"

namespace loa::train {

// What ReconcileSelfplay repaired.
struct Reconciled {
  int records_removed = 0;  // records of games whose shard was never written
  int metrics_added = 0;    // selfplay events of shards written before a kill
};

// Brings the game records and the selfplay events of metrics.jsonl in step
// with the shards of the writers of process `name` (NAME-wK), after a kill
// at any moment: a shard is the commit point of its games (its records are
// written before it, its event after it). Records without their shard are
// removed; a shard without its event gets one, marked "reconciled". Call it
// before those writers start.
Reconciled ReconcileSelfplay(const run::RunDir& run, const std::string& name, run::JsonLinesLog& metrics);

// The self-play workers of one process. Threads: Run on one thread (it
// starts selfplay.workers worker threads and joins them before it
// returns); games() and positions() from any; nothing else while Run runs.
// Lifetimes: config, run, log and metrics must outlive the object; `stop`
// must outlive Run.
class SelfPlay {
 public:
  // `name` tells this process's shards apart from other writers' in the
  // same run directory ("main" for `loaz train`); it and the config's seed
  // seed every game, never the clock.
  SelfPlay(run::RunContext& run, std::string name);
  ~SelfPlay();

  // Plays until a stop request, selfplay.max_games games in the run, or
  // `stop` becoming true; then writes the finished games it holds as a last
  // shard and returns. Loads the newest checkpoint first and every newer
  // one as it appears. Keeps the process's heartbeat (run/workers.h) from
  // start to end; waits first while another live process of the same name
  // plays (a requeued cluster task whose first life is not yet stale).
  // Throws Error when no net can be loaded.
  void Run(const std::atomic<bool>& stop);

  // Totals of this process so far. Thread-safe.
  int64_t games() const { return games_.load(); }
  int64_t positions() const { return positions_.load(); }

 private:
  struct Worker;
  void WorkerLoop(int index, const std::atomic<bool>& stop);
  // Adds a finished game to the worker's shard and records, and writes the
  // shard when it is full.
  void AddGame(Worker& w, const SelfPlayGame& g);
  void WriteShard(Worker& w, bool last);
  void Report(const Worker& w, int games, int samples);
  // Writes the heartbeat (workers/NAME.json) with the totals now.
  void Beat(bool ended);
  // Returns once no other live process has this process's name, or a stop
  // came first (false).
  bool WaitForTheName(const std::atomic<bool>& stop);
  // Moves self-play along selfplay.playouts_schedule: to the last step
  // whose hours the net in use has reached (a resumed run's first net may
  // have passed several). Never moves back.
  void NoteNetAge();
  struct StagePlayouts {
    int full, cheap;
  };
  // The playouts of a full and a cheap search at a stage of the schedule:
  // 0 mcts.*, k the schedule's step k - 1.
  StagePlayouts PlayoutsOf(int stage) const;
  // The playouts of a full search now.
  int Playouts() const;

  run::RunContext& run_;  // its config, directory, log and metrics
  const std::string name_;
  int64_t games_at_start_ = 0;
  std::atomic<int64_t> games_{0}, positions_{0}, samples_{0}, evaluations_{0};
  std::atomic<int64_t> resign_checked_{0}, false_resigns_{0};
  std::atomic<int64_t> proven_{0}, proof_micros_{0};  // selfplay.proof_nodes: positions proven, time spent
  std::atomic<int64_t> tree_proofs_{0};               // selfplay.tree_proofs: samples written
  std::atomic<bool> reached_max_games_{false};
  std::atomic<int> stage_{0};  // of the playouts schedule: 0 mcts.*, k its step k - 1
  double started_ = 0;
  double started_unix_ = 0;
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

}  // namespace loa::train
