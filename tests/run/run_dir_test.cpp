// The run directory as every process reads it without LibTorch: its paths,
// the checkpoints' headers and queries, the run's state, the workers'
// heartbeats and the Slurm scripts.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/file_util.h"
#include "run/checkpoints.h"
#include "run/config.h"
#include "run/run_dir.h"
#include "run/run_state.h"
#include "run/slurm.h"
#include "run/workers.h"
#include "tests/run/damage.h"

namespace loa::run {
namespace {

namespace fs = std::filesystem;
using loa::testing::Damage;
using loa::testing::DamageName;
using loa::testing::kEveryDamage;

class RunDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("loaz_run_dir_test_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    run_ = RunDir(root_.string());
    run_.Create();
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes a checkpoint file of step (its bytes are LibTorch's business)
  // and, when hours >= 0, its header.
  void AddCheckpoint(int64_t step, double hours) {
    if (hours >= 0) {
      CheckpointHeader header;
      header.step = step;
      header.counters[kElapsedMsCounter] = int64_t(hours * 3.6e6);
      header.counters["games_seen"] = step * 10;
      header.architecture = "1x16";
      WriteCheckpointHeader(run_, header);
    }
    WriteFileAtomic(run_.CheckpointPath(step), "not read here");
  }

  fs::path root_;
  RunDir run_{""};
};

TEST_F(RunDirTest, EveryFileHasItsPlace) {
  EXPECT_EQ(run_.CheckpointPath(120), run_.root() + "/checkpoints/ckpt_00000120.pt");
  EXPECT_EQ(run_.CheckpointHeaderPath(120), run_.root() + "/checkpoints/ckpt_00000120.json");
  EXPECT_EQ(run_.ExportPath(), run_.root() + "/net.safetensors");
  EXPECT_EQ(run_.MatchesPath(), run_.root() + "/eval/matches.jsonl");
  EXPECT_EQ(run_.RatingsPath(), run_.root() + "/eval/ratings.json");
  EXPECT_EQ(run_.EvalMatchDir("a_vs_b"), run_.root() + "/eval/games/a_vs_b");
  EXPECT_EQ(run_.WorkerPath("a3"), run_.root() + "/workers/a3.json");
  EXPECT_TRUE(fs::is_directory(run_.WorkersDir()));
  EXPECT_TRUE(RunDir::IsExportPath("runs/h4/net.safetensors"));
  EXPECT_FALSE(RunDir::IsExportPath("net.safetensors"));  // no run folder names it
  EXPECT_FALSE(RunDir::IsExportPath("runs/h4/h4.safetensors"));
  // Every folder a restart sweeps, the matches' records among them.
  fs::create_directories(run_.EvalMatchDir("x_vs_y"));
  const std::vector<std::string> folders = run_.WrittenFolders();
  EXPECT_NE(std::find(folders.begin(), folders.end(), run_.EvalMatchDir("x_vs_y")), folders.end());
  EXPECT_NE(std::find(folders.begin(), folders.end(), run_.WorkersDir()), folders.end());
}

// A shard's files are named in run_dir alone, and read back from their names.
TEST_F(RunDirTest, ShardsAndTheirRecordsAreNamedAndReadBack) {
  const ShardName shard{"main-w3", 12};
  EXPECT_EQ(run_.ShardPath(shard), run_.root() + "/selfplay/main-w3_000012.shard");
  EXPECT_EQ(run_.GameRecordPath(shard, 7), run_.root() + "/games/main-w3_000012_g7.txt");
  EXPECT_EQ(ShardOfFile("main-w3_000012.shard"), shard);
  EXPECT_EQ(ShardOfFile("main-w3_000012_g7.txt"), shard);
  EXPECT_EQ(ShardOfFile("a_b-w0_1234567.shard"), (ShardName{"a_b-w0", 1234567}));  // '_' in a name
  for (const char* other :
       {"main-w3_000012.shard.tmp.host.9.1", "main-w3.shard", "_000012.shard", "main-w3_00x012.shard",
        "main-w3_000012_g.txt", "main-w3_000012_gx.txt", "main-w3_000012.json", "notes.txt", ""})
    EXPECT_FALSE(ShardOfFile(other).has_value()) << other;
  // The next sequence number of a writer counts its shards, not its records
  // or another writer's.
  std::ofstream(run_.ShardPath({"main-w3", 4})) << "x";
  std::ofstream(run_.ShardPath({"main-w30", 9})) << "x";
  std::ofstream(run_.GameRecordPath({"main-w3", 20}, 0)) << "x";
  EXPECT_EQ(run_.NextShardSeq("main-w3"), 5);
  EXPECT_EQ(run_.NextShardSeq("main-w4"), 0);
  const std::vector<ShardFile> listed = run_.ListShards();
  ASSERT_EQ(listed.size(), 2u);
  for (const ShardFile& f : listed) EXPECT_EQ(f.path, run_.ShardFilePath(f.name));
}

// The writer names of self-play processes and their checkpoints' player
// names are spelled here and split back only from what was spelled.
TEST(RunNamesTest, WritersAndCheckpointPlayersReadBack) {
  EXPECT_EQ(WriterName("main", 3), "main-w3");
  EXPECT_EQ(ProcessOfWriter(WriterName("main", 3)), "main");
  EXPECT_EQ(ProcessOfWriter(WriterName("node-w2", 0)), "node-w2");  // "-w" inside a process's name
  for (const char* other : {"main", "main-w", "-w0", "main-wx", "main-w0x", ""})
    EXPECT_FALSE(ProcessOfWriter(other).has_value()) << other;
  const std::optional<RunCheckpoint> checkpoint = ParseRunCheckpointName(RunCheckpointName({"my run", 1200}));
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_EQ(checkpoint->run, "my run");
  EXPECT_EQ(checkpoint->step, 1200);
  EXPECT_EQ(RunCheckpointName({"a step 5", 7}), "a step 5 step 7");
  EXPECT_EQ(ParseRunCheckpointName("a step 5 step 7")->run, "a step 5");
  for (const char* other : {"step 12", " step 12", "run step", "run step x", "run step 012", "run", ""})
    EXPECT_FALSE(ParseRunCheckpointName(other).has_value()) << other;
}

TEST_F(RunDirTest, HeadersGiveTheCheckpointsHoursWithoutLibTorch) {
  AddCheckpoint(0, 0);
  AddCheckpoint(20, 0.25);
  AddCheckpoint(40, 0.5);
  const std::optional<CheckpointHeader> header = ReadCheckpointHeader(run_, 40);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->step, 40);
  EXPECT_EQ(header->counters.at("games_seen"), 400);
  EXPECT_EQ(header->architecture, "1x16");
  EXPECT_DOUBLE_EQ(CheckpointHours(run_, 20), 0.25);
  // A header of another step, a damaged one, or none: no hours, no error.
  WriteFileAtomic(run_.CheckpointHeaderPath(60), "{\"step\": 61}");
  EXPECT_FALSE(ReadCheckpointHeader(run_, 60));
  WriteFileAtomic(run_.CheckpointHeaderPath(80), "{not json");
  EXPECT_FALSE(ReadCheckpointHeader(run_, 80));
  EXPECT_DOUBLE_EQ(CheckpointHours(run_, 100), 0.0);
  // A header without its checkpoint (a kill between the two writes) is not listed.
  EXPECT_EQ(run_.ListCheckpoints(), (std::vector<int64_t>{0, 20, 40}));
}

TEST_F(RunDirTest, QueriesResolveAndChooseCheckpoints) {
  EXPECT_THROW(ResolveRunCheckpoint(run_, -1), Error);
  for (int64_t step : {0, 10, 20, 30, 40, 50}) AddCheckpoint(step, double(step) / 100);
  EXPECT_EQ(ResolveRunCheckpoint(run_, -1), run_.CheckpointPath(50));
  EXPECT_EQ(ResolveRunCheckpoint(run_, 20), run_.CheckpointPath(20));
  try {
    ResolveRunCheckpoint(run_, 25);
    ADD_FAILURE() << "no checkpoint 25";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint of step 25"), std::string::npos) << e.what();
  }
  EXPECT_EQ(CheckpointsUpTo(run_, 30, 3), (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(CheckpointsUpTo(run_, -1, 2), (std::vector<int64_t>{40, 50}));
  EXPECT_EQ(CheckpointsUpTo(run_, 50, 10, 30), (std::vector<int64_t>{30, 40, 50}));
  // The export at a run's end never averages its first half.
  EXPECT_EQ(FinalExportSteps(run_, 50, 10), (std::vector<int64_t>{30, 40, 50}));
  EXPECT_EQ(FinalExportSteps(run_, 50, 2), (std::vector<int64_t>{40, 50}));
}

TEST_F(RunDirTest, TheStateIsRunningUntilWrittenOtherwise) {
  EXPECT_EQ(ReadRunState(run_).state, RunState::kRunning);
  EXPECT_FALSE(ReadRunState(run_).ended());
  WriteRunState(run_, RunState::kStopped, "loaz stop on n1");
  RunStatus status = ReadRunState(run_);
  EXPECT_EQ(status.state, RunState::kStopped);
  EXPECT_EQ(status.reason, "loaz stop on n1");
  EXPECT_TRUE(status.ended());
  EXPECT_GT(status.time, 1.7e9);
  WriteRunState(run_, RunState::kFinished, "budget");
  EXPECT_EQ(ReadRunState(run_).state, RunState::kFinished);
  EXPECT_TRUE(ReadRunState(run_).damage.empty());
  // Nothing a user writes there by hand ends a run by accident, and each
  // damage is named with the file's path.
  for (const char* text : {"", "stopped", "{\"state\": \"over\"}", "{\"state\": 3}", "{\"state\": \"finis"}) {
    WriteFileAtomic(run_.StatePath(), text);
    const RunStatus damaged = ReadRunState(run_);
    EXPECT_EQ(damaged.state, RunState::kRunning) << text;
    EXPECT_EQ(damaged.damage.rfind(run_.StatePath() + ": ", 0), 0u) << text << ": " << damaged.damage;
  }
}

// Every way a file of the run's state can be damaged (tests/run/damage.h),
// for each kind that says who works for the run: the state, a worker's
// heartbeat, the trainer's, the cluster's job list. Each is named with its
// path, never taken for a valid one, and a sound file beside it still reads.
TEST_F(RunDirTest, DamagedStateHeartbeatsAndJobListsAreNamedNeverTrusted) {
  for (Damage damage : kEveryDamage) {
    SCOPED_TRACE(DamageName(damage));
    fs::remove_all(root_);
    run_.Create();
    // The state: a finished run whose state.json is damaged reads as running
    // (so that the run goes on) and says so.
    WriteRunState(run_, RunState::kFinished, "budget");
    loa::testing::DamageFile(run_.StatePath(), damage);
    const RunStatus status = ReadRunState(run_);
    EXPECT_EQ(status.state, RunState::kRunning);
    EXPECT_NE(status.damage.find(run_.StatePath()), std::string::npos) << status.damage;
    // A worker's heartbeat beside a sound one.
    WorkerBeat beat;
    beat.name = "a0";
    beat.host = "n1";
    beat.time = UnixNow();
    WriteWorkerBeat(run_, beat);
    beat.name = "a1";
    WriteWorkerBeat(run_, beat);
    loa::testing::DamageFile(run_.WorkerPath("a1"), damage);
    std::vector<std::string> damaged;
    const std::vector<WorkerBeat> beats = ReadWorkerBeats(run_, &damaged);
    ASSERT_EQ(beats.size(), 1u);
    EXPECT_EQ(beats[0].name, "a0");
    ASSERT_EQ(damaged.size(), 1u);
    EXPECT_NE(damaged[0].find(run_.WorkerPath("a1")), std::string::npos) << damaged[0];
    // The trainer's heartbeat.
    beat.name = "trainer";
    WriteTrainerBeat(run_, beat);
    ASSERT_TRUE(ReadTrainerBeat(run_).has_value());
    loa::testing::DamageFile(run_.TrainerBeatPath(), damage);
    std::string trainer_damage;
    EXPECT_FALSE(ReadTrainerBeat(run_, &trainer_damage).has_value());
    EXPECT_NE(trainer_damage.find(run_.TrainerBeatPath()), std::string::npos) << trainer_damage;
    EXPECT_TRUE(TrainerJson(run_, UnixNow()).is_null());
    // The cluster's job list.
    WriteSlurmJobs(run_, {"1235", "1234"});
    loa::testing::DamageFile(run_.ClusterJobsPath(), damage);
    std::string jobs_damage;
    const SlurmJobs jobs = ReadSlurmJobs(run_, &jobs_damage);
    if (damage == Damage::kEmptied) {
      EXPECT_TRUE(jobs_damage.empty());  // an empty list: no launch, which is what it says
    } else if (damage == Damage::kTruncated && jobs_damage.empty()) {
      EXPECT_EQ(jobs.trainer, "1235");  // cut at a line's end: the first job stands
    } else {
      EXPECT_NE(jobs_damage.find(run_.ClusterJobsPath()), std::string::npos) << jobs_damage;
      EXPECT_TRUE(jobs.trainer.empty() && jobs.selfplay.empty());
    }
  }
  // No trainer heartbeat at all is no damage.
  fs::remove_all(root_);
  run_.Create();
  std::string none;
  EXPECT_FALSE(ReadTrainerBeat(run_, &none).has_value());
  EXPECT_TRUE(none.empty());
}

TEST_F(RunDirTest, HeartbeatsSayWhoIsAliveStaleOrEnded) {
  EXPECT_TRUE(ReadWorkerBeats(run_).empty());
  const double now = UnixNow();
  WorkerBeat a;
  a.name = "a0";
  a.host = "n1";
  a.pid = 42;
  a.job = "7_0";
  a.time = now - 5;
  a.games = 12;
  a.positions = 900;
  a.positions_per_hour = 3600;
  a.net_step = 40;
  WriteWorkerBeat(run_, a);
  WorkerBeat b = a;
  b.name = "a1";
  b.host = "n2";
  b.time = now - kStaleSeconds - 1;
  WriteWorkerBeat(run_, b);
  WorkerBeat c = a;
  c.name = "main";
  c.time = now - 3600;
  c.ended = true;
  WriteWorkerBeat(run_, c);
  WriteFileAtomic(run_.WorkerPath("junk"), "[1, 2]");  // not a beat: skipped
  const std::vector<WorkerBeat> beats = ReadWorkerBeats(run_);
  ASSERT_EQ(beats.size(), 3u);
  EXPECT_EQ(beats[0].name, "a0");
  EXPECT_EQ(beats[0].host, "n1");
  EXPECT_EQ(beats[0].job, "7_0");
  EXPECT_EQ(beats[0].games, 12);
  EXPECT_EQ(beats[0].net_step, 40);
  EXPECT_EQ(LivenessAt(beats[0], now), WorkerLiveness::kAlive);
  EXPECT_EQ(LivenessAt(beats[1], now), WorkerLiveness::kStale);
  EXPECT_EQ(LivenessAt(beats[2], now), WorkerLiveness::kEnded);
  const nlohmann::json json = WorkersJson(run_, now);
  ASSERT_EQ(json.size(), 3u);
  EXPECT_EQ(json[1]["liveness"], "stale");
  EXPECT_NEAR(json[0]["seconds_since_beat"].get<double>(), 5, 0.01);
}

TEST(SlurmScriptsTest, SayWhatTheConfigAsks) {
  Config config;
  config.run.name = "big";
  config.cluster.workers = 12;
  config.cluster.partition = "cpu";
  config.cluster.time = "2:00:00";
  config.cluster.sbatch_lines = {"--mem=8G"};
  config.cluster.setup = "module load gcc";
  config.selfplay.workers = 7;
  const SlurmScripts cpu = MakeSlurmScripts(config, "/shared/runs/it's big", "/cluster/bin/loaz");
  for (const char* line : {"#SBATCH --array=0-11\n", "#SBATCH --cpus-per-task=7\n", "#SBATCH --partition=cpu\n",
                           "#SBATCH --time=2:00:00\n", "#SBATCH --mem=8G\n", "#SBATCH --requeue\n",
                           "#SBATCH --signal=B:USR1@120\n", "module load gcc\n", "--name \"a$SLURM_ARRAY_TASK_ID\"",
                           "loaz=('/cluster/bin/loaz')\n", "loaz_run=$run\n", "run='/shared/runs/it'\\''s big'\n"})
    EXPECT_NE(cpu.selfplay.find(line), std::string::npos) << line << "\n" << cpu.selfplay;
  EXPECT_EQ(cpu.trainer.find("--gres"), std::string::npos);  // a cpu run asks no GPU
  EXPECT_EQ(cpu.selfplay.find("--account"), std::string::npos);
  EXPECT_NE(cpu.trainer.find("\"${loaz[@]}\" trainer --run \"$loaz_run\" --unless-ended"), std::string::npos)
      << cpu.trainer;
  EXPECT_NE(cpu.trainer.find("scontrol requeue \"$task\""), std::string::npos);  // the keeper
  // A trainer that fails runs again, trainer_restarts times, then stops the run.
  EXPECT_NE(cpu.trainer.find("if [ \"$restarts\" -ge 5 ]"), std::string::npos) << cpu.trainer;
  EXPECT_NE(cpu.trainer.find("\"${loaz[@]}\" stop --run \"$loaz_run\" --reason"), std::string::npos);
  EXPECT_EQ(cpu.selfplay.find("restarts"), std::string::npos);  // a worker's task is the keeper's
  config.run.device = "cuda";
  config.train.threads = 3;
  config.eval.threads = 2;
  const std::string trainer = MakeSlurmScripts(config, "/r", "/l").trainer;
  EXPECT_NE(trainer.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << trainer;
  EXPECT_NE(trainer.find("#SBATCH --cpus-per-task=5\n"), std::string::npos) << trainer;  // train + eval threads
  config.cluster.trainer_gres = "gpu:a100:2";
  config.cluster.loaz = "/elsewhere/loaz";
  const SlurmScripts gpu = MakeSlurmScripts(config, "/r", "/l");
  EXPECT_NE(gpu.trainer.find("#SBATCH --gres=gpu:a100:2\n"), std::string::npos);
  EXPECT_NE(gpu.trainer.find("loaz=('/elsewhere/loaz')"), std::string::npos);
}

// Returns the words the script's `loaz` array holds, as bash expands it
// (the script's own lines from `run=` to `loaz_run=`, then `loaz_run`).
std::vector<std::string> LoazWords(const std::string& script) {
  const std::size_t from = script.find("\nrun="), to = script.find('\n', script.find("\nloaz_run=") + 1);
  EXPECT_NE(from, std::string::npos);
  const std::string path = ::testing::TempDir() + "/loaz_words.sh";
  WriteFileAtomic(path, script.substr(from, to - from) + "\nprintf '%s\\n' \"${loaz[@]}\" \"$loaz_run\"\n");
  std::FILE* pipe = ::popen(("USER=someone bash " + path).c_str(), "r");
  std::vector<std::string> words;
  char line[512];
  while (pipe && std::fgets(line, sizeof line, pipe)) words.emplace_back(line, std::strlen(line) - 1);
  if (pipe) {
    EXPECT_EQ(::pclose(pipe), 0);
  }
  return words;
}

TEST(SlurmScriptsTest, WithAnImageEveryLoazRunsInItUnderItsRuntime) {
  Config config;
  config.cluster.image = "/shared/images/lo az";
  const std::string run = "/shared/runs/it's";
  using Words = std::vector<std::string>;
  EXPECT_EQ(LoazWords(MakeSlurmScripts(config, run, "/build/loaz").trainer),
            (Words{"ch-run", "--bind=/shared/runs/it's:/mnt/run", "--cd=/mnt/run", "/shared/images/lo az", "--",
                   "/usr/local/bin/loaz", "/mnt/run"}));
  config.cluster.runtime = "apptainer";
  config.cluster.runtime_options = {"--nv"};
  EXPECT_EQ(LoazWords(MakeSlurmScripts(config, run, "/build/loaz").selfplay),
            (Words{"apptainer", "exec", "--bind=/shared/runs/it's:/mnt/run", "--pwd=/mnt/run", "--nv",
                   "/shared/images/lo az", "/usr/local/bin/loaz", "/mnt/run"}));
  config.cluster.runtime = "podman";
  config.cluster.runtime_options = {};
  config.cluster.image = "loazero:0.1.0";
  config.cluster.loaz = "/other/loaz";
  EXPECT_EQ(
      LoazWords(MakeSlurmScripts(config, run, "/build/loaz").trainer),
      (Words{"podman", "run", "--rm", "--network=host", "--security-opt=label=disable", "--env=LOAZ_HOST",
             "--volume=/shared/runs/it's:/mnt/run", "--workdir=/mnt/run", "loazero:0.1.0", "/other/loaz", "/mnt/run"}));
  // Without an image: the binary that launches, and the run where it is.
  config.cluster = ClusterConfig{};
  EXPECT_EQ(LoazWords(MakeSlurmScripts(config, run, "/build/lo'az").trainer), (Words{"/build/lo'az", run}));
}

TEST_F(RunDirTest, TheJobsOfALaunchReadBack) {
  EXPECT_TRUE(ReadSlurmJobs(run_).trainer.empty());
  WriteSlurmJobs(run_, {"", "1234"});  // the array first, as launch submits it
  EXPECT_EQ(ReadSlurmJobs(run_).selfplay, "1234");
  EXPECT_TRUE(ReadSlurmJobs(run_).trainer.empty());
  WriteSlurmJobs(run_, {"1235", "1234"});
  EXPECT_EQ(ReadSlurmJobs(run_).trainer, "1235");
  EXPECT_EQ(ReadSlurmJobs(run_).selfplay, "1234");
}

}  // namespace
}  // namespace loa::run
