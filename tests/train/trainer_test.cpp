#include "train/trainer.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/error.h"
#include "core/file_util.h"
#include "net/checkpoint.h"
#include "train/checkpoint_store.h"
#include "train/schedule.h"

namespace loa::train {
namespace {

namespace fs = std::filesystem;

TEST(ScheduleTest, TheBudgetSpentIsTheLargerShareOfStepsAndHours) {
  run::Config c;
  EXPECT_EQ(BudgetSpent(c, 100, 1.0), 0.0);  // no budget
  c.train.max_steps = 1000;
  EXPECT_NEAR(BudgetSpent(c, 100, 1.0), 0.1, 1e-12);
  c.run.max_hours = 2;
  EXPECT_NEAR(BudgetSpent(c, 100, 1.0), 0.5, 1e-12);
  EXPECT_NEAR(BudgetSpent(c, 900, 1.0), 0.9, 1e-12);
}

// A train credit of `ratio` capped at `cap` (0: none), before its first update.
TrainCredit Credit(double ratio, int64_t cap) {
  run::ReplayConfig c;
  c.max_train_ratio = ratio;
  c.max_train_credit = cap;
  return TrainCredit(c);
}

TEST(TrainCreditTest, EachNewSampleBuysTheRatioAndAStepSpendsItsBatch) {
  TrainCredit credit = Credit(4, 1000);
  credit.Update(0, 0);  // a fresh run: nothing yet
  EXPECT_FALSE(credit.Allows(1));
  credit.Update(100, 0);  // 100 new samples: 400 to train
  EXPECT_DOUBLE_EQ(credit.credit(), 400);
  EXPECT_TRUE(credit.Allows(400));
  EXPECT_FALSE(credit.Allows(401));
  credit.Spend(256);
  EXPECT_FALSE(credit.Allows(256));
  credit.Update(150, 0);  // 50 more: 144 + 200
  EXPECT_DOUBLE_EQ(credit.credit(), 344);
}

TEST(TrainCreditTest, TheBucketHoldsAtMostItsCapButNeverCutsOneUpdate) {
  TrainCredit credit = Credit(4, 1000);
  credit.Update(0, 0);
  credit.Update(200, 0);  // 800
  credit.Update(300, 0);  // 1200, capped: a trainer that fell behind catches up 1000
  EXPECT_DOUBLE_EQ(credit.credit(), 1000);
  credit.Spend(1000);
  credit.Update(700, 0);  // one update's 1600 is a steady ratio on a fast machine: all of it
  EXPECT_DOUBLE_EQ(credit.credit(), 1600);
  TrainCredit uncapped = Credit(4, 0);
  uncapped.Update(0, 0);
  uncapped.Update(1000, 0);
  EXPECT_DOUBLE_EQ(uncapped.credit(), 4000);
}

TEST(TrainCreditTest, AResumeOrForkStartsFromWhatTheHistoryLeftCapped) {
  // A resume of a run that had kept pace: 100,000 samples seen, 595,000 trained.
  TrainCredit resumed = Credit(6, 20000);
  resumed.Update(100000, 595000);
  EXPECT_DOUBLE_EQ(resumed.credit(), 5000);
  // A fork that lowers the ratio to 3 trains 3 per new sample at once,
  // not only once the run's whole history allows.
  TrainCredit lower = Credit(3, 20000);
  lower.Update(100000, 595000);
  EXPECT_FALSE(lower.Allows(1));
  lower.Update(100100, 595000);
  EXPECT_DOUBLE_EQ(lower.credit(), 300);
  // One that raises it to 12 catches up the cap, not 605,000 samples.
  TrainCredit higher = Credit(12, 20000);
  higher.Update(100000, 595000);
  EXPECT_DOUBLE_EQ(higher.credit(), 20000);
}

TEST(ScheduleTest, WarmUpInStepsThenCosineDownToTheFloorInSamples) {
  run::TrainConfig c;
  c.learning_rate = 0.1;
  c.warmup_steps = 10;
  c.lr_schedule = "cosine";
  c.lr_decay_samples = 100;
  c.lr_decay_factor = 0.1;
  EXPECT_NEAR(LearningRate(c, 0, 0), 0.1 * 0.1 * (0.1 + 0.9 * 1.0), 1e-9);
  EXPECT_LT(LearningRate(c, 4, 0), LearningRate(c, 8, 0));
  // The decay follows the self-play samples, whatever the step.
  EXPECT_NEAR(LearningRate(c, 50, 50), 0.1 * 0.55, 1e-9);  // half way: the mean of 1 and the floor
  EXPECT_NEAR(LearningRate(c, 5000, 50), 0.1 * 0.55, 1e-9);
  EXPECT_NEAR(LearningRate(c, 20, 0), 0.1, 1e-12);
  // A budget: ignored unless asked for; then whichever horizon comes first.
  EXPECT_NEAR(LearningRate(c, 5000, 0, 1.0), 0.1, 1e-12);
  c.lr_to_budget = true;
  EXPECT_NEAR(LearningRate(c, 5000, 0, 0.5), 0.1 * 0.55, 1e-9);
  EXPECT_NEAR(LearningRate(c, 5000, 0, 1.0), 0.1 * 0.1, 1e-9);
  EXPECT_NEAR(LearningRate(c, 5000, 0, 7.0), 0.1 * 0.1, 1e-9);
  EXPECT_NEAR(LearningRate(c, 5000, 50, 0.1), 0.1 * 0.55, 1e-9);  // the samples came first
  // A tail: flat (the sample schedule) for the first three quarters of the
  // budget, then the whole cosine over the last quarter.
  c.lr_budget_tail = 0.25;
  EXPECT_NEAR(LearningRate(c, 5000, 0, 0.5), 0.1, 1e-12);
  EXPECT_NEAR(LearningRate(c, 5000, 0, 0.75), 0.1, 1e-12);
  EXPECT_NEAR(LearningRate(c, 5000, 0, 0.875), 0.1 * 0.55, 1e-9);
  EXPECT_NEAR(LearningRate(c, 5000, 0, 1.0), 0.1 * 0.1, 1e-9);
  EXPECT_NEAR(LearningRate(c, 5000, 50, 0.8), 0.1 * 0.55, 1e-9);  // the samples still count
  c.lr_budget_tail = 1.0;
  EXPECT_NEAR(LearningRate(c, 20, 100), 0.01, 1e-12);
  EXPECT_NEAR(LearningRate(c, 20, 1000), 0.01, 1e-12);
  c.lr_schedule = "step";
  c.warmup_steps = 0;
  EXPECT_NEAR(LearningRate(c, 0, 99), 0.1, 1e-12);
  EXPECT_NEAR(LearningRate(c, 0, 250), 0.1 * 0.1 * 0.1, 1e-12);
  c.lr_schedule = "constant";
  EXPECT_EQ(LearningRate(c, 12345, 99999), 0.1);
}

class CheckpointStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = (fs::temp_directory_path() / ("loaz_ckpt_" + test + "_" + std::to_string(::getpid()))).string();
    fs::remove_all(root_);
    run::RunDir(root_).Create();
    config_.blocks = 1;
    config_.channels = 8;
  }
  void TearDown() override { fs::remove_all(root_); }

  // Saves a checkpoint of a fresh net at `step` with optimizer state.
  void Save(int64_t step) {
    LoaNet model(config_);
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    TrainingState state;
    state.step = step;
    state.counters[kSamplesTrainedCounter] = step * 10;
    SaveCheckpoint(run::RunDir(root_).CheckpointPath(step), model, &optimizer, state);
  }

  std::string root_;
  NetConfig config_;
};

TEST_F(CheckpointStoreTest, CorruptCheckpointFallsBackToThePreviousOneSayingSo) {
  run::RunDir run(root_);
  Save(0);
  Save(100);
  Save(200);
  // A checkpoint cut short, and one overwritten with garbage.
  const std::string newest = run.CheckpointPath(200), middle = run.CheckpointPath(100);
  const std::string bytes = ReadFile(newest);
  WriteFileAtomic(newest, bytes.substr(0, bytes.size() / 2));
  WriteFileAtomic(middle, "not a checkpoint");
  const std::string log_path = root_ + "/log.txt";
  std::optional<TrainingState> state;
  {
    run::Logger log(log_path, run::LogLevel::kError);
    LoaNet model(config_);
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    state = RestoreNewest(run, model, &optimizer, log);
  }
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->step, 0);
  const std::string text = ReadFile(log_path);
  EXPECT_NE(text.find("ckpt_00000200.pt"), std::string::npos) << text;
  EXPECT_NE(text.find("ckpt_00000100.pt"), std::string::npos) << text;
  EXPECT_NE(text.find("falling back"), std::string::npos) << text;
  EXPECT_EQ(NewestReadableCheckpoint(run, -1, nullptr), run.CheckpointPath(0));
  // The damaged ones are set aside, bytes intact, so that steps 100 and 200
  // can be written afresh and nothing is ever written over.
  EXPECT_EQ(run.ListCheckpoints(), std::vector<int64_t>{0});
  EXPECT_EQ(ReadFile(run.CheckpointDir() + "/damaged/ckpt_00000100.pt"), "not a checkpoint");
  EXPECT_EQ(ReadFile(run.CheckpointDir() + "/damaged/ckpt_00000200.pt"), bytes.substr(0, bytes.size() / 2));
}

// Returns the message of the Error that restoring run into model throws, or
// "no error".
std::string RestoreError(const run::RunDir& run, LoaNet& model) {
  run::Logger log("", run::LogLevel::kError);
  try {
    RestoreNewest(run, model, nullptr, log);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(CheckpointStoreTest, CheckpointsThatAllFailAreNeverAFreshStart) {
  run::RunDir run(root_);
  WriteFileAtomic(run.CheckpointPath(0), "not a checkpoint");
  LoaNet model(config_);
  const std::string message = RestoreError(run, model);
  EXPECT_NE(message.find("none of its 1 checkpoints loads"), std::string::npos) << message;
  EXPECT_EQ(ReadFile(run.CheckpointPath(0)), "not a checkpoint");
}

TEST_F(CheckpointStoreTest, AnotherArchitectureIsAnErrorNotDamage) {
  run::RunDir run(root_);
  Save(0);
  Save(20);
  const std::string before = ReadFile(run.CheckpointPath(20));
  NetConfig wider = config_;
  wider.channels = 16;
  LoaNet model(wider);
  const std::string message = RestoreError(run, model);
  EXPECT_NE(message.find("a run directory holds one architecture"), std::string::npos) << message;
  EXPECT_EQ(run.ListCheckpoints(), (std::vector<int64_t>{0, 20}));
  EXPECT_EQ(ReadFile(run.CheckpointPath(20)), before);
}

TEST_F(CheckpointStoreTest, RestoreReadsStepAndCounters) {
  run::RunDir run(root_);
  Save(0);
  Save(300);
  run::Logger log("", run::LogLevel::kError);
  LoaNet model(config_);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  const auto state = RestoreNewest(run, model, &optimizer, log);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->step, 300);
  EXPECT_EQ(state->counters.at(kSamplesTrainedCounter), 3000);
  PruneCheckpoints(run, 1);
  EXPECT_EQ(run.ListCheckpoints(), std::vector<int64_t>{300});
}

TEST_F(CheckpointStoreTest, NoCheckpointMeansAFreshStart) {
  run::Logger log("", run::LogLevel::kError);
  LoaNet model(config_);
  EXPECT_FALSE(RestoreNewest(run::RunDir(root_), model, nullptr, log).has_value());
}

}  // namespace
}  // namespace loa::train
