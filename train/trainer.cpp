#include "train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include <torch/torch.h>

#include "core/error.h"
#include "core/random.h"
#include "net/backends.h"
#include "net/checkpoint.h"
#include "net/encoder.h"
#include "net/model.h"
#include "net/torch_evaluator.h"
#include "run/open_run.h"
#include "train/checkpoint_store.h"
#include "train/losses.h"
#include "train/replay_buffer.h"
#include "train/schedule.h"
#include "train/stop.h"

namespace loa::train {
namespace {

using Clock = std::chrono::steady_clock;

// How long the trainer sleeps while it waits for self-play.
constexpr std::chrono::milliseconds kWaitPeriod{200};

// Sums of Losses over several batches, for the metrics.
struct LossSums {
  double policy = 0, value = 0, moves_left = 0, entropy = 0, value_accuracy = 0, grad_norm = 0;
  std::array<double, kNumTrainingHeads> heads{};
  int batches = 0;
  void Add(const Losses& l, double norm) {
    policy += l.policy, value += l.value, moves_left += l.moves_left;
    for (int h = 0; h < kNumTrainingHeads; ++h) heads[h] += l.heads[h];
    entropy += l.entropy;
    value_accuracy += l.value_accuracy, grad_norm += norm, ++batches;
  }
  // Writes the means into event under their names.
  void Into(nlohmann::json& event) const {
    const double n = std::max(1, batches);
    event["policy_loss"] = policy / n;
    event["value_loss"] = value / n;
    event["moves_left_loss"] = moves_left / n;
    for (int h = 0; h < kNumTrainingHeads; ++h)  // a net with the head
      if (heads[h] > 0) event[std::string(kTrainingHeads[h].name) + "_loss"] = heads[h] / n;
    event["policy_entropy"] = entropy / n;
    event["value_accuracy"] = value_accuracy / n;
  }
};

}  // namespace

struct Trainer::Impl {
  explicit Impl(run::RunContext& context)
      : config(context.config),
        run(context.dir),
        log(context.log),
        metrics(context.metrics),
        device(ResolveDevice(config.run.device)),
        model(nullptr),
        buffer(config.replay, Mix(uint64_t(config.run.seed) ^ 0x7472616eULL), config.net.features()),
        feed(run, log) {
    const run::Config& c = config;
    torch::manual_seed(uint64_t(c.run.seed));
    model = LoaNet(c.net);
    model->to(device);
    optimizer = MakeOptimizer(c.train, model);
    if (c.train.average_steps > 0) {
      average = LoaNet(c.net);
      average->to(device);
      average->eval();
      CopyWeights(model, average);
    }
  }

  LoaNet* Average() { return average ? &average : nullptr; }

  double Hours() const {
    return (double(elapsed_ms_base) + std::chrono::duration<double, std::milli>(Clock::now() - started).count()) /
           3.6e6;
  }
  bool Finished() const {
    return (config.train.max_steps > 0 && step >= config.train.max_steps) ||
           (config.run.max_hours > 0 && Hours() >= config.run.max_hours);
  }

  TrainingState State() const {
    TrainingState s;
    s.step = step;
    s.rules = config.rules.ToString();
    s.counters[kSamplesTrainedCounter] = samples_trained;
    s.counters[run::kElapsedMsCounter] = int64_t(Hours() * 3.6e6);
    s.counters[kGamesSeenCounter] = feed.games_seen();
    s.counters[kSelfplaySamplesCounter] = feed.samples_seen();
    return s;
  }

  void LoadInitialNet();
  void PollShards(bool force);
  bool WaitForData();
  void TrainStep();
  void Validate();
  std::string SaveCheckpoint();
  void LogProgress();

  // The run's parts (run::RunContext's), named as the trainer uses them.
  const run::Config& config;
  const run::RunDir& run;
  run::Logger& log;
  run::JsonLinesLog& metrics;
  torch::Device device;
  LoaNet model;
  LoaNet average{nullptr};  // the moving average of model (train.average_steps), or null
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  ReplayBuffer buffer;
  ShardFeed feed;
  Batch batch;

  int64_t step = 0, samples_trained = 0, elapsed_ms_base = 0;
  TrainCredit credit{config.replay};  // the train ratio
  Clock::time_point started = Clock::now(), last_scan{}, interval_start = Clock::now();
  double interval_train_seconds = 0, last_lr = 0;
  int64_t interval_samples = 0;
  LossSums sums;
};

// Starts from train.initial_net: its weights, grown where it has fewer
// blocks or channels than the run's net (GrowInto), the training-only
// heads (which exports lack) left at their
// initialisation.
void Trainer::Impl::LoadInitialNet() {
  const std::string& path = config.train.initial_net;
  const ExportedNet net = run::ReadInitialNet(config);
  NetConfig shape = config.net;
  shape.blocks = net.config.blocks;
  shape.channels = net.config.channels;
  LoaNet start(shape);
  LoadExportInto(net, start);
  GrowInto(start, model);  // a copy where the shapes are the same
  if (average) CopyWeights(model, average);
  log.Info("fresh run: starting from " + path + " (" + net.config.ShortName() + ", step " + std::to_string(net.step) +
           (shape == config.net ? ")" : ", grown to " + config.net.ShortName() + ")"));
}

void Trainer::Impl::PollShards(bool force) {
  const auto now = Clock::now();
  if (!force && now - last_scan < std::chrono::duration<double>(config.replay.scan_seconds)) return;
  last_scan = now;
  feed.Poll(buffer);
  credit.Update(feed.train_samples_seen(), samples_trained);
}

// Returns false when a stop or the time limit came first. The train ratio:
// a step waits until the bucket holds its batch (TrainCredit).
bool Trainer::Impl::WaitForData() {
  for (bool first = true;; first = false) {
    PollShards(first && buffer.size() == 0);
    const bool enough = buffer.size() >= config.replay.min_samples;
    if (enough && credit.Allows(config.train.batch_size)) return true;
    if (StopRequested() || Finished()) return false;
    char line[160];
    std::snprintf(line, sizeof line, "step %lld | waiting for self-play: window %lld/%lld samples, games %lld",
                  (long long)step, (long long)buffer.size(), (long long)config.replay.min_samples,
                  (long long)feed.games_seen());
    log.Progress(line);
    std::this_thread::sleep_for(kWaitPeriod);
  }
}

void Trainer::Impl::TrainStep() {
  const auto begin = Clock::now();
  last_lr = LearningRate(config.train, step, feed.samples_seen(), BudgetSpent(config, step, Hours()));
  for (auto& group : optimizer->param_groups()) group.options().set_lr(last_lr);
  buffer.SampleBatch(config.train.batch_size, Split::kTrain, &batch);
  model->train();
  optimizer->zero_grad();
  Losses l = ComputeLosses(model, batch, config.train, config.train.value_q_weight, device);
  // A non-finite loss or gradient would poison the weights: stop before the
  // step, so that the newest checkpoint stays the last good one.
  auto fail = [&](const std::string& what) {
    char values[160];
    std::snprintf(values, sizeof values, " (policy loss %g, value loss %g)", l.policy, l.value);
    throw Error("step " + std::to_string(step + 1) + ": " + what + values +
                "; the run stops, its newest checkpoint is the last good one");
  };
  bool finite = std::isfinite(l.policy) && std::isfinite(l.value) && std::isfinite(l.moves_left);
  for (double head : l.heads) finite = finite && std::isfinite(head);
  if (!finite) fail("the training loss is not finite");
  l.total.backward();
  double norm = 0;
  if (config.train.grad_clip > 0) {
    norm = torch::nn::utils::clip_grad_norm_(model->parameters(), config.train.grad_clip);
    if (!std::isfinite(norm)) fail("the gradient is not finite");
  }
  optimizer->step();
  if (average) {
    // TensorFlow's ExponentialMovingAverage with num_updates: the early
    // average forgets the random start quickly, then keeps 1 - 1/N.
    const double n = double(config.train.average_steps), t = double(step);
    UpdateAverage(average, model, std::min(1.0 - 1.0 / n, (1.0 + t) / (10.0 + t)));
  }
  ++step;
  samples_trained += config.train.batch_size;
  credit.Spend(config.train.batch_size);
  interval_samples += config.train.batch_size;
  interval_train_seconds += std::chrono::duration<double>(Clock::now() - begin).count();
  sums.Add(l, norm);
}

void Trainer::Impl::Validate() {
  if (buffer.validation_size() == 0 || config.train.validation_batches == 0) return;
  model->eval();
  torch::NoGradGuard no_grad;
  LossSums v;
  for (int i = 0; i < config.train.validation_batches; ++i) {
    buffer.SampleBatch(config.train.batch_size, Split::kValidation, &batch);
    v.Add(ComputeLosses(model, batch, config.train, 0.0, device), 0);
  }
  nlohmann::json event = {
      {"event", "validation"}, {"step", step}, {"hours", Hours()}, {"samples", buffer.validation_size()}};
  v.Into(event);
  metrics.Write(event);
}

std::string Trainer::Impl::SaveCheckpoint() {
  const std::string path = run.CheckpointPath(step);
  // The header first: every checkpoint a reader lists has one.
  const TrainingState state = State();
  run::CheckpointHeader header = HeaderOf(state, model->config());
  header.config = run::SoundConfigText(run.ConfigPath());  // what restores a damaged config.yaml
  run::WriteCheckpointHeader(run, header);
  loa::SaveCheckpoint(path, model, optimizer.get(), state, Average());
  metrics.Write({{"event", "checkpoint"}, {"step", step}, {"hours", Hours()}, {"path", path}});
  PruneCheckpoints(run, config.train.keep_checkpoints);
  return path;
}

void Trainer::Impl::LogProgress() {
  const double wall = std::chrono::duration<double>(Clock::now() - interval_start).count();
  nlohmann::json event = {{"event", "train"},
                          {"step", step},
                          {"hours", Hours()},
                          {"samples", samples_trained},
                          {"lr", last_lr},
                          {"grad_norm", sums.grad_norm / std::max(1, sums.batches)},
                          {"samples_per_second", interval_samples / std::max(1e-9, interval_train_seconds)},
                          {"samples_per_second_wall", interval_samples / std::max(1e-9, wall)},
                          {"buffer", buffer.size()},
                          {"validation_buffer", buffer.validation_size()},
                          {"games", feed.games_seen()},
                          {"games_by_process", feed.games_by_process()},
                          {"selfplay_samples", feed.samples_seen()}};
  sums.Into(event);
  metrics.Write(event);
  char line[200];
  const double n = std::max(1, sums.batches);
  std::snprintf(line, sizeof line,
                "step %lld | loss p %.3f v %.3f | %.0f samples/s | window %lld | games %lld | lr %.2g | %.2f h",
                (long long)step, sums.policy / n, sums.value / n, event["samples_per_second"].get<double>(),
                (long long)buffer.size(), (long long)feed.games_seen(), last_lr, Hours());
  log.Progress(line);
  sums = LossSums();
  interval_samples = 0;
  interval_train_seconds = 0;
  interval_start = Clock::now();
}

Trainer::Trainer(run::RunContext& run) {
  // Training owns LibTorch's threads in its process (ClaimTorchThreads).
  if (ClaimTorchThreads(run.config.train.threads) != run.config.train.threads)
    run.log.Warn("LibTorch's thread count was set before the trainer's train.threads");
  impl_ = std::make_unique<Impl>(run);
}

Trainer::~Trainer() = default;

int64_t Trainer::RestoreOrStart() {
  Impl& s = *impl_;
  WriteMissingCheckpointHeaders(s.run, &s.log);  // a run from before headers
  if (auto state = RestoreNewest(s.run, s.model, s.optimizer.get(), s.log, s.Average())) {
    s.step = state->step;
    s.samples_trained = state->counters[kSamplesTrainedCounter];
    s.elapsed_ms_base = state->counters[run::kElapsedMsCounter];
    s.started = Clock::now();
  } else if (!s.config.train.initial_net.empty()) {
    s.LoadInitialNet();
    s.SaveCheckpoint();
  } else {
    s.log.Info("fresh run: writing the randomly initialised net " + s.config.net.ShortName() + " as step 0");
    s.SaveCheckpoint();
  }
  return s.step;
}

int64_t Trainer::Run(const CheckpointCallback& on_checkpoint) {
  Impl& s = *impl_;
  s.log.Info("trainer: " + s.config.net.ShortName() + " net on " + s.device.str() + ", " +
             std::to_string(s.config.train.threads) + " threads, batch " + std::to_string(s.config.train.batch_size) +
             ", from step " + std::to_string(s.step));
  int64_t last_saved = s.step;
  while (!StopRequested() && !s.Finished()) {
    if (!s.WaitForData()) break;
    s.TrainStep();
    if (s.step % s.config.train.log_every == 0) s.LogProgress();
    if (s.step % s.config.train.checkpoint_every == 0 || s.Finished()) {
      s.Validate();
      const std::string path = s.SaveCheckpoint();
      last_saved = s.step;
      if (on_checkpoint) on_checkpoint(s.step, path);
    }
    s.PollShards(false);
  }
  if (s.step != last_saved) {
    const std::string path = s.SaveCheckpoint();
    if (on_checkpoint) on_checkpoint(s.step, path);
  }
  return s.step;
}

bool Trainer::Finished() const { return impl_->Finished(); }

double Trainer::Hours() const { return impl_->Hours(); }

}  // namespace loa::train
