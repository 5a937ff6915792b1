// The parts of a training run, each on its own and small: the real training
// step (ComputeLosses and the optimiser) on a tiny buffer, self-play with
// the uniform evaluator, NetSource's choice of checkpoint, and
// CheckpointRater's matches and ratings.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/error.h"
#include "core/file_util.h"
#include "core/game.h"
#include "mcts/selfplay_driver.h"
#include "mcts/testing.h"
#include "mcts/uniform_evaluator.h"
#include "net/checkpoint.h"
#include "net/encoder.h"
#include "play/mcts_player.h"
#include "run/checkpoints.h"
#include "run/metrics.h"
#include "run/run_dir.h"
#include "tests/net/encode_batch.h"
#include "tests/run/damage.h"
#include "train/checkpoint_store.h"
#include "train/evaluation.h"
#include "train/fork.h"
#include "train/game_samples.h"
#include "train/losses.h"
#include "train/net_source.h"
#include "train/replay_buffer.h"
#include "train/run.h"
#include "train/selfplay.h"
#include "train/shard.h"
#include "train/trainer.h"

namespace loa::train {
namespace {

namespace fs = std::filesystem;

// A fresh run directory under the temporary folder, removed afterwards.
class RunPartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("loaz_run_parts_" + std::to_string(getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    run_ = std::make_unique<run::RunDir>(root_.string());
    run_->Create();
    config_.net.blocks = 1;
    config_.net.channels = 8;
    config_.net.policy_channels = config_.net.value_channels = 4;
    config_.net.value_hidden = config_.net.moves_left_hidden = 8;
    config_.net.global_pooling_every = 0;
    config_.run.device = "cpu";
  }
  void TearDown() override { fs::remove_all(root_); }

  // Returns the number of lines of metrics.jsonl whose event is `event`.
  int MetricsLines(const std::string& event) const {
    std::ifstream in(run_->MetricsPath());
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.find("\"event\":\"" + event + "\"") != std::string::npos;
    return n;
  }

  fs::path root_;
  std::unique_ptr<run::RunDir> run_;
  run::Config config_;
};

// A shard of self-play games with the uniform evaluator, real targets.
Shard UniformShard(int games, int playouts) {
  UniformEvaluator evaluator;
  SearchParams params;
  params.playouts = playouts;
  params.cheap_playouts = playouts;
  Rules rules;
  rules.max_plies = 60;
  SelfPlayDriver driver(&evaluator, params, rules, SelfPlayGames{games, 7, 0, games});
  Shard shard;
  for (const SelfPlayGame& g : testing::PlayAll(driver)) AppendGame(g, OutcomeOf(g), &shard);
  return shard;
}

// A batch of the connection input set from real self-play targets.
Batch ConnectionBatch(const Shard& shard) {
  const int n = std::min<int>(32, int(shard.samples.size()));
  Batch batch;
  batch.features = InputFeatures::kConnection;
  batch.Resize(n);
  for (int i = 0; i < n; ++i) FillBatchRow(shard, shard.samples[i], 0, i, &batch);
  return batch;
}

// The training step, in fp32 and in bf16 (train.precision).
class TrainingStepTest : public RunPartsTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(TrainingStepTest, StepsLowerTheRealLossOnATinyBuffer) {
  torch::manual_seed(3);
  const Shard shard = UniformShard(2, 16);
  ASSERT_GT(shard.samples.size(), 8u);
  // The connection input set and every training-only head: the trainer's
  // batches, losses and model with all of them.
  const Batch batch = ConnectionBatch(shard);

  NetConfig net = config_.net;
  net.input_features = "connection";
  net.head_channels.fill(4);
  LoaNet model(net);
  model->train();
  run::TrainConfig c = config_.train;
  c.learning_rate = 0.05;
  c.precision = GetParam();
  c.head_weights.fill(1.0);  // each head's share of the 40 steps alike
  auto optimizer = MakeOptimizer(c, model);
  const torch::Device cpu(torch::kCPU);
  const Losses first = ComputeLosses(model, batch, c, 0.0, cpu);
  for (int step = 0; step < 40; ++step) {
    optimizer->zero_grad();
    Losses l = ComputeLosses(model, batch, c, 0.0, cpu);
    l.total.backward();
    optimizer->step();
  }
  const Losses last = ComputeLosses(model, batch, c, 0.0, cpu);
  EXPECT_LT(last.policy + last.value, 0.8 * (first.policy + first.value))
      << "policy " << first.policy << " -> " << last.policy << ", value " << first.value << " -> " << last.value;
  EXPECT_GT(first.entropy, 0);
  // Each head learns its target: where these games ended, the moves played
  // after these positions, the flattened search policy.
  for (int h = 0; h < kNumTrainingHeads; ++h) {
    EXPECT_GT(first.heads[h], 0) << kTrainingHeads[h].name;
    EXPECT_LT(last.heads[h], 0.8 * first.heads[h])
        << kTrainingHeads[h].name << ": " << first.heads[h] << " -> " << last.heads[h];
  }
  // A value target mixed with the root value is another loss of the same batch.
  EXPECT_NE(ComputeLosses(model, batch, c, 0.5, cpu).value, last.value);
  // The weights and the batch norms' statistics stay float32 whatever the
  // forward pass's precision.
  for (const torch::Tensor& p : model->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat32);
  for (const torch::Tensor& b : model->buffers())
    if (b.is_floating_point()) {
      EXPECT_EQ(b.scalar_type(), torch::kFloat32);
    }
}

INSTANTIATE_TEST_SUITE_P(Precisions, TrainingStepTest, ::testing::Values("fp32", "bf16"));

TEST_F(RunPartsTest, ThePolicyLossIsTheMeanOverTheRowsWithAPolicyTarget) {
  // A tree proof's row has no policy target: it neither adds to the policy
  // loss nor dilutes it. The two halves' losses, each the mean over its own
  // rows, average to the whole batch's.
  torch::manual_seed(6);
  const Batch batch = ConnectionBatch(UniformShard(2, 16));
  ASSERT_EQ(batch.size % 2, 0);
  NetConfig net = config_.net;
  net.input_features = "connection";
  LoaNet model(net);
  model->eval();
  const run::TrainConfig c = config_.train;
  const torch::Device cpu(torch::kCPU);
  auto without = [&](int from, int to) {
    Batch b = batch;
    std::fill(b.policy.begin() + size_t(from) * kPolicySize, b.policy.begin() + size_t(to) * kPolicySize, 0.0f);
    return ComputeLosses(model, b, c, 0.0, cpu).policy;
  };
  const int half = batch.size / 2;
  const double whole = ComputeLosses(model, batch, c, 0.0, cpu).policy;
  const double first = without(half, batch.size), second = without(0, half);
  EXPECT_GT(first, 0);
  EXPECT_GT(second, 0);
  EXPECT_NEAR((first + second) / 2, whole, 1e-4 * whole);
  EXPECT_EQ(without(0, batch.size), 0.0);  // no row with a target: no policy loss
}

TEST_F(RunPartsTest, Bf16LossesAreNearFp32sAndAutocastEndsWithTheForwardPass) {
  torch::manual_seed(5);
  const Batch batch = ConnectionBatch(UniformShard(2, 16));
  NetConfig net = config_.net;
  net.input_features = "connection";
  LoaNet model(net);
  model->eval();
  run::TrainConfig c = config_.train;
  const torch::Device cpu(torch::kCPU);
  const Losses fp32 = ComputeLosses(model, batch, c, 0.0, cpu);
  c.precision = "bf16";
  const Losses bf16 = ComputeLosses(model, batch, c, 0.0, cpu);
  // bfloat16 keeps 8 bits of mantissa: the losses agree to about 1%, and
  // differ (the precision was applied).
  EXPECT_NEAR(bf16.policy, fp32.policy, 0.02 * fp32.policy);
  EXPECT_NEAR(bf16.value, fp32.value, 0.02 * fp32.value);
  EXPECT_NE(bf16.policy + bf16.value, fp32.policy + fp32.value);
  EXPECT_EQ(bf16.total.scalar_type(), torch::kFloat32);
  // Autocast is this thread's state: off again once the forward pass is done.
  EXPECT_FALSE(at::autocast::is_cpu_enabled());
  EXPECT_EQ(model->forward(torch::zeros({1, NumInputPlanes(InputFeatures::kConnection), 8, 8})).policy.scalar_type(),
            torch::kFloat32);
}

// Returns whether every parameter of a and b is equal.
bool SameParameters(LoaNet& a, LoaNet& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& item : pa)
    if (!torch::equal(item.value(), pb[item.key()])) return false;
  return true;
}

TEST_F(RunPartsTest, TheTrainerKeepsAWeightAverageThatPlaysAndResumes) {
  WriteShard(run_->ShardPath({"test-w0", 0}), UniformShard(4, 16));
  config_.replay.min_samples = 8;
  config_.replay.max_train_ratio = 1e6;
  config_.replay.validation_share = 0;
  config_.train.batch_size = 16;
  config_.train.checkpoint_every = 6;
  config_.train.average_steps = 4;
  config_.train.max_steps = 6;
  {
    run::RunContext context(config_, *run_, run::LogLevel::kWarning);
    Trainer trainer(context);
    ASSERT_EQ(trainer.RestoreOrStart(), 0);
    ASSERT_EQ(trainer.Run(nullptr), 6);
  }
  const std::string path = run_->CheckpointPath(6);
  ASSERT_TRUE(ReadCheckpointInfo(path).has_average);
  // Every checkpoint has its header beside it, readable without LibTorch.
  for (int64_t step : run_->ListCheckpoints()) {
    const std::optional<run::CheckpointHeader> header = run::ReadCheckpointHeader(*run_, step);
    ASSERT_TRUE(header) << step;
    EXPECT_EQ(header->architecture, config_.net.ShortName());
    EXPECT_EQ(header->counters, ReadCheckpointInfo(run_->CheckpointPath(step)).state.counters);
  }
  // A run from before headers gets them from its checkpoints.
  fs::remove(run_->CheckpointHeaderPath(6));
  EXPECT_FALSE(run::ReadCheckpointHeader(*run_, 6));
  {
    run::Logger quiet("", run::LogLevel::kError);
    WriteMissingCheckpointHeaders(*run_, &quiet);
  }
  ASSERT_TRUE(run::ReadCheckpointHeader(*run_, 6));
  EXPECT_EQ(run::ReadCheckpointHeader(*run_, 6)->counters, ReadCheckpointInfo(path).state.counters);
  LoaNet trained(config_.net), average(config_.net);
  LoadCheckpoint(path, trained, nullptr, &average);
  EXPECT_FALSE(SameParameters(trained, average));
  LoaNet plays = LoadModel(path);
  EXPECT_TRUE(SameParameters(plays, average));

  // A resume goes on from both: the average at step 12 is neither the
  // trained weights nor a fresh copy of them.
  config_.train.max_steps = 12;
  {
    run::RunContext context(config_, *run_, run::LogLevel::kWarning);
    Trainer trainer(context);
    ASSERT_EQ(trainer.RestoreOrStart(), 6);
    ASSERT_EQ(trainer.Run(nullptr), 12);
  }
  LoaNet trained12(config_.net), average12(config_.net);
  LoadCheckpoint(run_->CheckpointPath(12), trained12, nullptr, &average12);
  EXPECT_FALSE(SameParameters(trained12, average12));
  EXPECT_FALSE(SameParameters(average12, average));
}

// Self-plays two games of 40 plies at most with a net of step 200 that has
// two hours of run time behind it; returns the log.
std::string SelfPlayWithATwoHourNet(const run::Config& base, const run::RunDir& run) {
  run::Config config = base;
  config.selfplay.workers = 1;
  config.selfplay.games_per_worker = 2;
  config.selfplay.games_per_shard = 2;
  config.selfplay.max_games = 2;
  config.selfplay.record_every = 0;
  config.rules.max_plies = 40;
  LoaNet model(config.net);
  TrainingState state;
  state.step = 200;
  state.rules = config.rules.ToString();
  state.counters[run::kElapsedMsCounter] = 2 * 3600 * 1000;
  run::WriteCheckpointHeader(run, HeaderOf(state, config.net));  // as the trainer writes it
  SaveCheckpoint(run.CheckpointPath(200), model, nullptr, state);
  {
    run::RunContext context(config, run);
    SelfPlay selfplay(context, "test");
    std::atomic<bool> stop{false};
    selfplay.Run(stop);
  }
  return ReadFile(run.LogPath());
}

TEST_F(RunPartsTest, SelfPlaySearchesDeeperOnceItsNetIsLateHoursOld) {
  config_.mcts.playouts = config_.mcts.cheap_playouts = 8;
  config_.selfplay.playouts_schedule = {{1.5, 24, 24}, {2.5, 48, 48}};  // the net is not 2.5 hours old
  const std::string text = SelfPlayWithATwoHourNet(config_, *run_);
  EXPECT_NE(text.find("(selfplay.playouts_schedule[0].hours 1.5): searches now use 24 playouts, cheap ones 24"),
            std::string::npos)
      << text;
  EXPECT_EQ(MetricsLines("selfplay"), 1);
  EXPECT_NE(ReadFile(run_->MetricsPath()).find("\"playouts\":24"), std::string::npos);
}

TEST_F(RunPartsTest, SelfPlayTakesTheLaterPlayoutsOnceItsNetIsLaterHoursOld) {
  config_.mcts.playouts = config_.mcts.cheap_playouts = 8;
  config_.selfplay.playouts_schedule = {{1, 16, 16}, {1.75, 32, 12}};
  const std::string text = SelfPlayWithATwoHourNet(config_, *run_);
  // A resumed run whose net is past both steps goes straight to the second.
  EXPECT_NE(text.find("(selfplay.playouts_schedule[1].hours 1.75): searches now use 32 playouts, cheap ones 12"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("searches now use 16 playouts"), std::string::npos) << text;
  EXPECT_NE(ReadFile(run_->MetricsPath()).find("\"playouts\":32"), std::string::npos);
}

// Returns the message of the Error that starting a run of config throws,
// or "no error".
std::string StartError(const run::Config& config, const run::RunDir& run) {
  try {
    run::RunContext context(config, run, run::LogLevel::kError);
    Trainer trainer(context);
    trainer.RestoreOrStart();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(RunPartsTest, AFreshRunStartsFromItsInitialNetGrownAndOnlyOnce) {
  const std::string initial = (root_ / "initial.safetensors").string();
  WriteNewNet(initial, config_.net, 11, config_.rules.ToString());
  const ExportedNet small = ReadExport(initial);
  config_.net.blocks = 2;
  config_.train.initial_net = initial;
  ASSERT_EQ(StartError(config_, *run_), "no error");

  // Step 0 is the initial net with a second block that adds nothing.
  const ExportedNet first = ExportCheckpoint(run_->CheckpointPath(0));
  EXPECT_EQ(first.config.blocks, 2);
  for (const auto& [name, tensor] : small.tensors) EXPECT_EQ(first.Get(name).data, tensor.data) << name;
  for (float scale : first.Get("blocks.1.bn2.weight").data) EXPECT_EQ(scale, 0.0f);

  // A run with a checkpoint resumes from it and never reads the net again.
  config_.train.initial_net = (root_ / "gone.safetensors").string();
  EXPECT_EQ(StartError(config_, *run_), "no error");

  // A net that cannot start the run is one line naming the key and file.
  run::RunDir other((root_ / "other").string());
  other.Create();
  config_.train.initial_net = initial;
  config_.net.value_hidden = 16;
  std::string message = StartError(config_, other);
  EXPECT_NE(message.find("train.initial_net: " + initial), std::string::npos) << message;
  EXPECT_NE(message.find("only net.blocks and net.channels may differ"), std::string::npos) << message;
  config_.net.value_hidden = 8;
  // A wider run grows it as well.
  run::RunDir wide((root_ / "wide").string());
  wide.Create();
  config_.net.channels = 12;
  EXPECT_EQ(StartError(config_, wide), "no error");
  EXPECT_EQ(ExportCheckpoint(wide.CheckpointPath(0)).config.ShortName(), "2x12");
  config_.net.channels = 8;
  config_.rules.max_plies = 77;
  message = StartError(config_, other);
  EXPECT_NE(message.find("trained for rules"), std::string::npos) << message;
  EXPECT_TRUE(other.ListCheckpoints().empty());
}

TEST_F(RunPartsTest, SelfPlayWithTheUniformEvaluatorWritesShardsRecordsAndMetrics) {
  config_.selfplay.workers = 1;
  config_.selfplay.games_per_worker = 2;
  config_.selfplay.games_per_shard = 2;
  config_.selfplay.max_games = 4;
  config_.selfplay.uniform_first = true;
  config_.selfplay.record_every = 1;
  config_.mcts.playouts = config_.mcts.cheap_playouts = 8;
  // Every position a full search written once: samples count positions.
  config_.mcts.full_search_fraction = 1;
  config_.selfplay.policy_surprise_weight = 0;
  config_.rules.max_plies = 60;
  run::RunContext context(config_, *run_);
  SelfPlay selfplay(context, "test");
  std::atomic<bool> stop{false};
  selfplay.Run(stop);

  int64_t games = 0, samples = 0;
  for (const run::ShardFile& f : run_->ListShards()) {
    const ShardCounts counts = ReadShardCounts(run_->SelfplayDir() + "/" + f.name);
    games += counts.games;
    samples += counts.samples;
  }
  EXPECT_GE(games, 4);
  EXPECT_EQ(games, selfplay.games());
  EXPECT_EQ(samples, selfplay.positions());
  EXPECT_EQ(MetricsLines("selfplay"), int(run_->ListShards().size()));
  int records = 0;
  for (const auto& entry : fs::directory_iterator(run_->GamesDir())) records += entry.path().extension() == ".txt";
  EXPECT_EQ(records, games);
}

TEST_F(RunPartsTest, ReconcileRepairsWhatAKillBetweenTheWritesLeft) {
  // Shard 0 of test-w0 is complete; shard 1 was written but its event was
  // not; shard 2's records were written but the shard was not. Another
  // process's orphan record is not this process's business.
  Shard shard;
  shard.games = 2;
  Sample sample;
  shard.Add(sample, {{0, 1.0f}});
  WriteShard(run_->ShardPath({"test-w0", 0}), shard);
  WriteShard(run_->ShardPath({"test-w0", 1}), shard);
  for (const char* record : {"test-w0_000000_g0.txt", "test-w0_000000_g1.txt", "test-w0_000001_g0.txt",
                             "test-w0_000001_g1.txt", "test-w0_000002_g0.txt", "other-w0_000005_g0.txt"})
    WriteFileAtomic(run_->GamesDir() + "/" + record, "1. d1-b3\n");
  {
    run::JsonLinesLog metrics(run_->MetricsPath());
    metrics.Write({{"event", "selfplay"}, {"writer", "test-w0"}, {"shard", 0}, {"shard_games", 2}});
  }
  // A line cut short by the kill: the next event starts a line of its own.
  {
    std::ofstream cut(run_->MetricsPath(), std::ios::app);
    cut << "{\"event\":\"selfp";
  }
  run::JsonLinesLog metrics(run_->MetricsPath());
  const Reconciled done = ReconcileSelfplay(*run_, "test", metrics);
  EXPECT_EQ(done.records_removed, 1);
  EXPECT_EQ(done.metrics_added, 1);
  EXPECT_FALSE(fs::exists(run_->GamesDir() + "/test-w0_000002_g0.txt"));
  EXPECT_TRUE(fs::exists(run_->GamesDir() + "/other-w0_000005_g0.txt"));
  int games = 0;
  for (const nlohmann::json& event : run::ReadJsonLines(run_->MetricsPath()))
    if (event.value("event", "") == "selfplay") games += event.value("shard_games", 0);
  EXPECT_EQ(games, 4);
  // Done once, it finds nothing more to do.
  const Reconciled again = ReconcileSelfplay(*run_, "test", metrics);
  EXPECT_EQ(again.records_removed + again.metrics_added, 0);
}

// Returns the names of the files in folder, sorted.
std::vector<std::string> FileNames(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(RunPartsTest, AForkGoesOnFromTheCheckpointWithWhatItsTrainerHadSeen) {
  // The source run: two shards, training to step 3; a third shard, to step 6.
  config_.replay.min_samples = 8;
  config_.replay.max_train_ratio = 1e6;
  config_.replay.validation_share = 0;
  config_.train.batch_size = 16;
  config_.train.checkpoint_every = 3;
  WriteFileAtomic(run_->ConfigPath(), run::ConfigToYaml(config_));
  run::JsonLinesLog metrics(run_->MetricsPath());
  auto add_shard = [&](int seq) {
    WriteShard(run_->ShardPath({"test-w0", seq}), UniformShard(2, 16));
    WriteFileAtomic(run_->GamesDir() + "/test-w0_00000" + std::to_string(seq) + "_g0.txt", "1. d1-b3\n");
    metrics.Write({{"event", "selfplay"}, {"writer", "test-w0"}, {"shard", seq}, {"shard_games", 2}});
  };
  auto train_to = [&](const run::Config& config, const run::RunDir& run, int64_t steps) {
    run::Config c = config;
    c.train.max_steps = steps;
    run::RunContext context(c, run, run::LogLevel::kWarning);
    Trainer trainer(context);
    const int64_t from = trainer.RestoreOrStart();
    EXPECT_EQ(trainer.Run(nullptr), steps);
    return from;
  };
  add_shard(0);
  add_shard(1);
  train_to(config_, *run_, 3);
  add_shard(2);
  train_to(config_, *run_, 6);
  {
    run::JsonLinesLog matches(run_->MatchesPath());
    for (int step : {3, 6}) matches.Write({{"a", "ckpt"}, {"b", "ab:depth=1"}, {"step", step}, {"games", 2}});
  }

  const std::string to = (root_ / "fork").string();
  const ForkSummary fork = ForkRun(run_->root(), 3, to, {"train.learning_rate=0.01"});
  EXPECT_EQ(fork.step, 3);
  EXPECT_EQ(fork.checkpoints, 2);  // steps 0 and 3
  EXPECT_EQ(fork.shards, 2);
  EXPECT_EQ(fork.games, 4);
  EXPECT_EQ(fork.grown_to, "");
  EXPECT_GT(fork.hours, 0);
  EXPECT_NE(ReadFile(to + "/FORK.txt").find(" h of run time"), std::string::npos);
  const run::RunDir forked(to);
  EXPECT_EQ(forked.ListCheckpoints(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(FileNames(forked.SelfplayDir()),
            (std::vector<std::string>{"test-w0_000000.shard", "test-w0_000001.shard"}));
  EXPECT_EQ(FileNames(forked.GamesDir()), (std::vector<std::string>{"test-w0_000000_g0.txt", "test-w0_000001_g0.txt"}));
  EXPECT_TRUE(fs::exists(to + "/FORK.txt"));
  int selfplay_events = 0, last_checkpoint = -1;
  for (const nlohmann::json& event : run::ReadJsonLines(forked.MetricsPath())) {
    selfplay_events += event.value("event", "") == "selfplay";
    if (event.value("event", "") == "checkpoint") last_checkpoint = event.value("step", -1);
  }
  EXPECT_EQ(selfplay_events, 2);
  EXPECT_EQ(last_checkpoint, 3);
  const std::vector<nlohmann::json> matches = run::ReadJsonLines(forked.EvalDir() + "/matches.jsonl");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].value("step", 0), 3);
  // Its config is the source's with the change, named after its folder; a
  // resume goes on from step 3.
  const run::Config fork_config = run::LoadConfig(forked.ConfigPath());
  EXPECT_DOUBLE_EQ(fork_config.train.learning_rate, 0.01);
  EXPECT_EQ(fork_config.RunDirectory(), fs::path(to).lexically_normal().string());
  EXPECT_EQ(train_to(fork_config, forked, 6), 3);
  // The source is as it was.
  EXPECT_EQ(run_->ListCheckpoints(), (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(run_->ListShards().size(), 3u);

  // A deeper net grows from the checkpoint: the same outputs, and it trains on.
  const std::string deep_to = (root_ / "deep").string();
  const ForkSummary deep = ForkRun(run_->root(), 3, deep_to, {"net.blocks=2"});
  EXPECT_EQ(deep.grown_from, "1x8");
  EXPECT_EQ(deep.grown_to, "2x8");
  EXPECT_EQ(run::RunDir(deep_to).ListCheckpoints(), (std::vector<int64_t>{3}));
  LoaNet trained(config_.net);
  LoadCheckpoint(run_->CheckpointPath(3), trained, nullptr);
  trained->eval();
  LoaNet grown = LoadModel(run::RunDir(deep_to).CheckpointPath(3));
  EXPECT_EQ(grown->config().blocks, 2);
  std::vector<Position> positions = {Position::Start(), Position::Start()};
  const torch::Tensor input = testing::EncodeBatch(positions.data(), 2, config_.net.features());
  EXPECT_TRUE(torch::allclose(trained->forward(input).value, grown->forward(input).value, 1e-5, 1e-6));
  EXPECT_EQ(train_to(run::LoadConfig(run::RunDir(deep_to).ConfigPath()), run::RunDir(deep_to), 6), 3);
  // And a wider one.
  const std::string wide_to = (root_ / "wide").string();
  const ForkSummary wide = ForkRun(run_->root(), 3, wide_to, {"net.channels=12"});
  EXPECT_EQ(wide.grown_to, "1x12");
  LoaNet wider = LoadModel(run::RunDir(wide_to).CheckpointPath(3));
  EXPECT_EQ(wider->config().channels, 12);
  EXPECT_TRUE(torch::allclose(trained->forward(input).value, wider->forward(input).value, 1e-5, 1e-6));
  EXPECT_NE(ReadFile(wide_to + "/FORK.txt").find("grew from 1x8 to 1x12"), std::string::npos);
  EXPECT_EQ(train_to(run::LoadConfig(run::RunDir(wide_to).ConfigPath()), run::RunDir(wide_to), 6), 3);

  // What a fork refuses, leaving nothing behind.
  auto refused = [&](const std::string& target, const std::vector<std::string>& sets, const std::string& why) {
    try {
      ForkRun(run_->root(), 3, target, sets);
      ADD_FAILURE() << "no error for " << target;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused(to, {}, "exists already");
  try {
    ForkRun(wide_to, 3, (root_ / "narrow").string(), {"net.channels=8"});
    ADD_FAILURE() << "a fork shrank the net";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not shrink it to 1x8"), std::string::npos) << e.what();
  }
  refused((root_ / "heads").string(), {"net.value_hidden=16"}, "net.value_hidden");
  refused((root_ / "named").string(), {"run.name=x"}, "--to");
  EXPECT_FALSE(fs::exists(root_ / "narrow"));
  EXPECT_FALSE(fs::exists(root_ / "heads"));
  EXPECT_FALSE(fs::exists(root_ / "named"));
}

TEST(CheckPlayerSpecsTest, ABadOpponentFailsAtTheStart) {
  for (bool build : {true, false}) {
    try {
      CheckPlayerSpecs({"ab:depth=2", "ab:depth=0"}, "eval.opponents", build);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("eval.opponents: player 'ab:depth=0'"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(CheckPlayerSpecs({"ab:depth=2", "random"}, "eval.opponents", build));
  }
}

TEST_F(RunPartsTest, ACheckOfTheConfigRunsBeforeTheRunIsWritten) {
  fs::create_directories(root_);
  const fs::path config = root_ / "checked.yaml";
  WriteFileAtomic(config.string(), "run:\n  name: checked\n  directory: " + root_.string() + "\n");
  auto refuse = [](const run::Config&) { throw Error("eval.opponents: refused"); };
  EXPECT_THROW(run::OpenRunFromConfig(config.string(), {}, refuse), Error);
  EXPECT_FALSE(fs::exists(root_ / "checked"));
  const run::OpenedRun opened = run::OpenRunFromConfig(config.string(), {});
  EXPECT_TRUE(fs::exists(root_ / "checked" / "config.yaml"));
  EXPECT_THROW(run::OpenRunDirectory(opened.dir.root(), {}, false, refuse), Error);
}

TEST_F(RunPartsTest, NetSourceTakesTheNewestLoadableCheckpoint) {
  run::Logger log;
  NetEvaluatorOptions options;
  options.cache_entries = 0;
  NetSource source(*run_, options, /*uniform_before_training=*/true, log);
  ASSERT_TRUE(source.Refresh());  // no checkpoint: the uniform evaluator, as step 0
  EXPECT_EQ(source.step(), 0);
  const Position start = Position::Start(StartKind::kStandard);
  EvalOutput out;
  source.Evaluate(&start, 1, &out);
  EXPECT_EQ(out.num_moves, 36);
  EXPECT_FLOAT_EQ(out.priors[0], 1.0f / 36);

  WriteNewNet(run_->CheckpointPath(5), config_.net, 1, Rules().ToString());
  EXPECT_TRUE(source.Refresh());
  EXPECT_EQ(source.step(), 5);
  source.Evaluate(&start, 1, &out);
  EXPECT_EQ(out.num_moves, 36);

  WriteFileAtomic(run_->CheckpointPath(10), "not a checkpoint");
  EXPECT_FALSE(source.Refresh());  // step 10 is skipped with a warning
  EXPECT_EQ(source.step(), 5);
}

TEST_F(RunPartsTest, CheckpointRaterPlaysTheLadderAndRatesTheCheckpoint) {
  config_.eval.opponents = {"random", "greedy"};
  config_.eval.games = 2;
  config_.eval.playouts = 4;
  config_.eval.time = 0;  // the playouts count
  config_.eval.previous_best = true;
  config_.eval.threads = 1;
  WriteNewNet(run_->CheckpointPath(1), config_.net, 1, Rules().ToString());
  WriteNewNet(run_->CheckpointPath(2), config_.net, 2, Rules().ToString());
  run::RunContext context(config_, *run_);
  CheckpointRater rater(context);
  ASSERT_TRUE(rater.Rate(1, 0.5));
  ASSERT_TRUE(rater.Rate(2, 1.0));

  const std::vector<MatchRecord> records = ReadMatchRecords(*run_);
  // The ladder once, each checkpoint against both, step 2 against step 1.
  ASSERT_EQ(records.size(), 6u);
  int games_of_step_2 = 0;
  for (const MatchRecord& r : records) {
    EXPECT_EQ(r.wins + r.draws + r.losses, 2) << r.a << " - " << r.b;
    if (r.a == "step 2") ++games_of_step_2;
  }
  EXPECT_EQ(games_of_step_2, 3);
  EXPECT_EQ(MetricsLines("rating"), 2);
  EXPECT_NE(ReadFile(run_->EvalDir() + "/ratings.txt").find("step 2"), std::string::npos);
}

// eval/matches.jsonl and eval/ratings.json damaged every way: the readers
// name the file, a folder in the way is set aside, and the evaluation goes
// on, playing again the matches it can no longer read.
TEST_F(RunPartsTest, DamagedMatchesAndRatingsAreNamedSetAsideAndPlayedAgain) {
  using loa::testing::Damage;
  config_.eval.opponents = {"random", "greedy"};
  config_.eval.games = 2;
  config_.eval.playouts = 4;
  config_.eval.previous_best = false;
  config_.eval.threads = 1;
  config_.eval.time = 0;        // the playouts count
  config_.eval.max_plies = 30;  // short games: what is tested is the files
  WriteNewNet(run_->CheckpointPath(1), config_.net, 1, Rules().ToString());
  for (Damage damage : loa::testing::kEveryDamage) {
    SCOPED_TRACE(loa::testing::DamageName(damage));
    fs::remove_all(run_->EvalDir());
    run_->Create();
    run::RunContext context(config_, *run_);
    {
      CheckpointRater rater(context);
      ASSERT_TRUE(rater.Rate(1, 0.5));
    }
    ASSERT_EQ(ReadMatchRecords(*run_).size(), 3u);  // the ladder, and step 1 against each
    loa::testing::DamageFile(run_->MatchesPath(), damage);
    loa::testing::DamageFile(run_->RatingsPath(), damage);
    std::string damaged;
    const size_t left = ReadMatchRecords(*run_, &damaged).size();
    EXPECT_LT(left, 3u);
    if (damage == Damage::kEmptied)
      EXPECT_EQ(damaged, "");  // no match yet is what an empty file says
    else
      EXPECT_EQ(damaged.rfind(run_->MatchesPath() + ": ", 0), 0u) << damaged;
    // A new rater sets a folder aside, and the matches lost are played again.
    CheckpointRater rater(context);
    EXPECT_EQ(fs::exists(run_->MatchesPath() + ".damaged"), damage == Damage::kFolder);
    EXPECT_EQ(fs::exists(run_->RatingsPath() + ".damaged"), damage == Damage::kFolder);
    ASSERT_TRUE(rater.Rate(1, 0.5));
    int games = 0;
    for (const MatchRecord& r : ReadMatchRecords(*run_)) games += r.wins + r.draws + r.losses;
    EXPECT_EQ(games, 6);  // each of the three matches whole again
    EXPECT_TRUE(nlohmann::json::parse(ReadFile(run_->RatingsPath())).is_array());
  }
}

// The saved config damaged every way: the run opens with the copy in its
// newest checkpoint header that holds one, the damaged file set aside;
// without a copy, the config's own error, naming it.
TEST_F(RunPartsTest, ADamagedConfigIsRestoredFromTheNewestCheckpointsCopy) {
  config_.run.name = "restored";
  config_.train.batch_size = 48;
  const std::string yaml = run::ConfigToYaml(config_);
  for (loa::testing::Damage damage : loa::testing::kEveryDamage) {
    SCOPED_TRACE(loa::testing::DamageName(damage));
    fs::remove_all(root_);
    run_->Create();
    WriteFileAtomic(run_->ConfigPath(), yaml);
    run::CheckpointHeader header;
    header.step = 40;
    header.config = run::SoundConfigText(run_->ConfigPath());
    ASSERT_EQ(header.config, yaml);
    run::WriteCheckpointHeader(*run_, header);
    WriteFileAtomic(run_->CheckpointPath(40), "weights");
    header.step = 20;  // an older copy, of another batch size: not the one taken
    header.config = run::ConfigToYaml([&] {
      run::Config older = config_;
      older.train.batch_size = 16;
      return older;
    }());
    run::WriteCheckpointHeader(*run_, header);
    WriteFileAtomic(run_->CheckpointPath(20), "weights");
    loa::testing::DamageFile(run_->ConfigPath(), damage);
    const run::OpenedRun opened = run::OpenRunDirectory(root_.string(), {}, false);
    EXPECT_EQ(run::ConfigToYaml(opened.config), yaml);
    EXPECT_EQ(ReadFile(run_->ConfigPath()), yaml);
    EXPECT_TRUE(fs::exists(run_->ConfigPath() + ".damaged"));
    // Cut at a line's end, what is left reads: its lost last line tells.
    fs::remove(run_->ConfigPath() + ".damaged");
    WriteFileAtomic(run_->ConfigPath(), yaml.substr(0, yaml.find("\nmcts:") + 1));
    EXPECT_EQ(run::ConfigToYaml(run::OpenRunDirectory(root_.string(), {}, false).config), yaml);
    EXPECT_TRUE(fs::exists(run_->ConfigPath() + ".damaged"));
    // Without a copy (a run from before copies): the error names the file
    // (a cut that still reads cannot be told from a config of before the
    // last line, and is taken).
    if (damage == loa::testing::Damage::kTruncated) continue;
    loa::testing::DamageFile(run_->ConfigPath(), damage);
    for (int64_t step : {20, 40}) {
      header.step = step;
      header.config = "";
      run::WriteCheckpointHeader(*run_, header);
    }
    try {
      run::OpenRunDirectory(root_.string(), {}, false);
      ADD_FAILURE() << "a damaged config was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(run_->ConfigPath()), std::string::npos) << e.what();
    }
  }
}

TEST_F(RunPartsTest, TheCheckpointPlayerTakesAnyPathAndTheRunsSearch) {
  // A path with the characters of a spec's syntax: built typed, the player
  // needs no spec of it.
  const std::string dir = root_.string() + "/odd,name=x";
  std::filesystem::create_directories(dir);
  WriteNewNet(dir + "/net.pt", config_.net, 1, Rules().ToString());
  config_.eval.time = 0;
  config_.eval.playouts = 8;
  config_.mcts.dirichlet_epsilon = 0.25f;  // self-play's noise: the engine drops it
  const EvalSide side = CheckpointSide("step 1", dir + "/net.pt", config_);
  EXPECT_EQ(side.name, "step 1");
  EXPECT_NE(side.spec.find("playouts=8"), std::string::npos) << side.spec;
  const std::unique_ptr<Player> player = side.make();
  Game game;
  const Move move = player->ChooseMove(game, Clock());
  EXPECT_TRUE(game.position().IsLegal(move));
  EXPECT_EQ(EngineSearchParams(config_.mcts).dirichlet_epsilon, 0.0f);
  EXPECT_EQ(EngineSearchParams(config_.mcts).cpuct_init, config_.mcts.cpuct_init);
  // The engine's levers on, self-play's search without them.
  EXPECT_EQ(EngineSearchParams(config_.mcts).policy_temperature, kEnginePolicyTemperature);
  EXPECT_EQ(EngineSearchParams(config_.mcts).leaves_per_batch, kEngineLeavesPerBatch);
  EXPECT_EQ(config_.mcts.policy_temperature, 1.0f);
  EXPECT_EQ(config_.mcts.leaves_per_batch, 1);
}

TEST_F(RunPartsTest, ASecondRatingTopsUpOnlyTheMissingGamesWithNewOpenings) {
  config_.eval.opponents = {"random"};
  config_.eval.games = 2;
  config_.eval.playouts = 4;
  config_.eval.time = 0;  // the playouts count
  config_.eval.previous_best = false;
  WriteNewNet(run_->CheckpointPath(1), config_.net, 1, Rules().ToString());
  run::RunContext context(config_, *run_);
  CheckpointRater rater(context);
  ASSERT_TRUE(rater.Rate(1, 0.5));
  ASSERT_TRUE(rater.Rate(1, 0.5));  // nothing lacks: nothing is played or written
  ASSERT_EQ(ReadMatchRecords(*run_).size(), 1u);
  EXPECT_EQ(MetricsLines("rating"), 1);
  config_.eval.time = 0.01;  // the strength benchmark's equal time per move
  run::RunContext timed(config_, *run_);
  ASSERT_TRUE(CheckpointRater(timed).Rate(1, 0.5, 6));
  const std::vector<MatchRecord> records = ReadMatchRecords(*run_);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].wins + records[1].draws + records[1].losses, 4);
  const std::string games = run_->EvalDir() + "/games/";
  // The top-up's records go beside the first match's, not over them.
  EXPECT_EQ(std::distance(fs::directory_iterator(games), fs::directory_iterator()), 2);
  const std::string spec = run::ReadJsonLines(run_->EvalDir() + "/matches.jsonl").back()["a_spec"];
  EXPECT_NE(spec.find("time=0.01"), std::string::npos) << spec;
  EXPECT_EQ(spec.find("playouts="), std::string::npos) << spec;
}

TEST(EvalPauseTest, TheInRunEvaluationWaitsUntilItHasTakenItsShareOfTheCores) {
  // One game at a time on 2 cores is half the machine: a tenth needs the
  // round and four times as long again; a fifth, the round again.
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(100, 1, 2, 0.1), 400);
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(100, 1, 2, 0.25), 100);
  // Two games at once on 2 cores take the whole machine while they play.
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(100, 2, 2, 0.5), 100);
  // More games at once than cores take no more than every core.
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(100, 8, 2, 0.5), 100);
  // A share at least what the round took: no wait.
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(100, 1, 2, 1), 0);
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(100, 1, 4, 0.25), 0);
  EXPECT_DOUBLE_EQ(EvalPauseSeconds(0, 1, 2, 0.1), 0);
}

TEST(CheckpointNameTest, StepsReadBackOnlyFromCheckpointNames) {
  EXPECT_EQ(run::CheckpointStep(run::CheckpointName(1234)), 1234);
  EXPECT_EQ(run::CheckpointStep(run::CheckpointName(0)), 0);
  EXPECT_FALSE(run::CheckpointStep("step x"));
  EXPECT_FALSE(run::CheckpointStep("step "));
  EXPECT_FALSE(run::CheckpointStep("step 012"));
  EXPECT_FALSE(run::CheckpointStep("ab:depth=2"));
  EXPECT_FALSE(run::CheckpointStep("step 99999999999999999999999"));
}

}  // namespace
}  // namespace loa::train
