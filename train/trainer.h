#pragma once
// The trainer loop: samples batches from the replay window, takes optimizer
// steps on the policy, value and moves-left losses, writes metrics and a
// checkpoint every train.checkpoint_every steps. This header sees no
// LibTorch, so that the commands compile fast.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "net/export.h"
#include "run/config.h"
#include "run/run_context.h"
#include "run/run_dir.h"

namespace loa::train {

// Counter names stored in every checkpoint's TrainingState.
inline constexpr char kSamplesTrainedCounter[] = "samples_trained";
inline constexpr char kGamesSeenCounter[] = "games_seen";
inline constexpr char kSelfplaySamplesCounter[] = "selfplay_samples";

// The trainer of a run. Threads: one thread calls every member (LibTorch's
// intra-op threads are its own); the checkpoint callback runs on that
// thread. Lifetimes: config, run, log and metrics must outlive the object.
class Trainer {
 public:
  // Called after each checkpoint is written, with its step and path.
  using CheckpointCallback = std::function<void(int64_t step, const std::string& path)>;

  // Sets up the model and optimizer on config.run.device; nothing is read
  // yet. Throws Error for a device LibTorch lacks.
  explicit Trainer(run::RunContext& run);
  ~Trainer();

  // Loads the newest loadable checkpoint (model, optimizer, step, counters;
  // falling back past corrupt ones with a warning) or, in a fresh run,
  // writes the randomly initialised net as step 0. Returns the step.
  int64_t RestoreOrStart();

  // Trains until train.max_steps, run.max_hours or a stop request, then
  // writes a final checkpoint if the last step has none. Returns the step.
  int64_t Run(const CheckpointCallback& on_checkpoint);

  // Returns whether the run reached its step or time limit.
  bool Finished() const;

  // Returns the hours of run time so far (over every resume).
  double Hours() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loa::train
