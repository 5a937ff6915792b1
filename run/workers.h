#pragma once
// Who works for a run: each self-play process keeps a heartbeat in the run
// directory, workers/NAME.json, and the trainer one, trainer.json, each
// rewritten every kHeartbeatSeconds and once more when it ends. `loaz
// status` and the page's Runs view read them; a heartbeat older than
// kStaleSeconds is a process that died without a word (killed, or its
// machine lost). Self-play processes without a trainer in them end once
// the trainer's heartbeat has been stale for cluster.trainer_gone_minutes
// (train/run.cpp): they would play for nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/run_dir.h"

namespace loa::run {

inline constexpr double kHeartbeatSeconds = 10;
inline constexpr double kStaleSeconds = 3 * kHeartbeatSeconds + 5;

struct WorkerBeat {
  std::string name;  // the process's writer name (its shards are NAME-wK_SEQ.shard)
  std::string host;  // ThisHost(): the machine (on a cluster, the node)
  int64_t pid = 0;
  std::string job;                // the batch system's job, e.g. "1234_1" (Slurm's array job and task), or ""
  double started = 0;             // Unix seconds
  double time = 0;                // Unix seconds of this beat
  int64_t games = 0;              // games this process finished
  int64_t positions = 0;          // their positions
  double positions_per_hour = 0;  // since the process started
  int64_t net_step = -1;          // the checkpoint it plays (0: the first net, -1: none yet)
  bool ended = false;             // the process ended cleanly after this beat
};

// What a reader makes of a beat at `now`.
enum class WorkerLiveness { kAlive, kStale, kEnded };
WorkerLiveness LivenessAt(const WorkerBeat& beat, double now);
const char* LivenessName(WorkerLiveness liveness);

nlohmann::json ToJson(const WorkerBeat& beat);

// Writes workers/NAME.json atomically. Throws IoError.
void WriteWorkerBeat(const RunDir& dir, const WorkerBeat& beat);

// Returns every heartbeat of the run, by name; a file that does not read
// as one is skipped, and when damaged is not null, named there with its
// path and what is wrong ("runs/x/workers/a0.json: not a heartbeat").
std::vector<WorkerBeat> ReadWorkerBeats(const RunDir& dir, std::vector<std::string>* damaged = nullptr);

// Returns every heartbeat as JSON (ToJson) with its "liveness" and its
// "seconds_since_beat" at `now`: what `loaz status` and the page show.
// damaged as ReadWorkerBeats's.
nlohmann::json WorkersJson(const RunDir& dir, double now, std::vector<std::string>* damaged = nullptr);

// The trainer's heartbeat, trainer.json: a WorkerBeat named "trainer"
// whose net_step is its newest checkpoint's step. Writes it atomically;
// throws IoError.
void WriteTrainerBeat(const RunDir& dir, const WorkerBeat& beat);
// Returns the trainer's heartbeat, or nothing when there is none or it does
// not read as one (then *damage, when not null, names the path and why).
std::optional<WorkerBeat> ReadTrainerBeat(const RunDir& dir, std::string* damage = nullptr);
// Returns the trainer's heartbeat as WorkersJson gives a worker's, or null.
nlohmann::json TrainerJson(const RunDir& dir, double now, std::string* damage = nullptr);

// Returns the batch system's name of this process's job from the
// environment (SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID, else SLURM_JOB_ID),
// or "" outside one.
std::string BatchJobName();

// Returns Unix seconds now.
double UnixNow();

}  // namespace loa::run
