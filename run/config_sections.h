#pragma once
// The sections of a training run's config that are run/'s own: one plain
// struct per YAML section, every field declared once, with its range and
// help, in its struct's Visit function (core/param_visitor.h;
// config_sections.cpp). The whole config, and its loading: run/config.h.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/game.h"
#include "core/param_visitor.h"
#include "mcts/search_params.h"
#include "net/net_config.h"
#include "net/net_evaluator.h"
#include "net/training_heads.h"

namespace loa::run {

// Section `run`: where the run lives and what drives it.
struct RunConfig {
  std::string name = "default";  // the run directory is directory/name
  std::string directory = "runs";
  int64_t seed = 1;             // every random generator derives from it
  std::string device = "auto";  // auto | cpu | cuda
  double max_hours = 0;         // stop after this much run time (0: never)

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// One step of self-play's playouts schedule: from a net `hours` of run time
// old, full searches use `full` playouts and cheap ones `cheap`.
struct PlayoutsStep {
  double hours = 1;
  int full = 320;
  int cheap = 64;

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// Section `selfplay`: the self-play workers.
struct SelfplayConfig {
  int workers = 1;            // threads, each advancing many games at once
  int games_per_worker = 64;  // games one worker advances together (its batch)
  int games_per_shard = 16;   // finished games written per replay shard
  int64_t max_games = 0;      // stop self-play after this many games in the run (0: never)
  // How the net runs (net/net_evaluator.h): inference_threads, max_batch,
  // cache_entries, precision, ... under this section's keys; its device is
  // run.device's.
  NetEvaluatorOptions evaluator = [] {
    NetEvaluatorOptions o;
    o.inference_threads = 2;  // the engine's default is 1
    return o;
  }();
  // Resignation (AlphaZero): resign when the root value stays below the
  // threshold for `resign_consecutive` moves of the same side; -1 turns it off.
  double resign_threshold = -0.9;
  int resign_consecutive = 3;
  // AlphaZero plays 10% of the games that would resign to the end, to check
  // that the threshold is not losing won games.
  double resign_playout_share = 0.1;
  double checkpoint_poll_seconds = 10;  // how often a worker looks for a newer checkpoint
  // Before the first trained checkpoint, search with uniform priors and an
  // even value instead of the random net: it knows as little, for free.
  bool uniform_first = false;
  int record_every = 1;  // keep the record of every k-th game (0: none)
  // KataGo's policy-surprise weighting (game_samples.h): this share of a
  // game's expected samples is placed in proportion to how far the search's
  // target is from the net's raw policy; 0 writes each full search once.
  double policy_surprise_weight = 0.5;
  // The solver's proofs as value targets (docs/TRAINING.md, "The lever
  // left"): each finished game's sampled positions, from its last back,
  // are solved by df-pn within this many nodes each, and a proven result
  // (won, lost, drawn) replaces the game's outcome as the position's value
  // target; 0 turns it off.
  int64_t proof_nodes = 0;
  // Each game opens with this many uniformly random moves, unsearched and
  // unrecorded, and is played from where they lead (mcts/selfplay_driver.h):
  // positions its own play would not reach, the second player's wins among
  // them (docs/TRAINING.md); 0: every game from the start.
  int random_opening_plies = 0;
  // The search trees' proofs as value targets (Descent's exact targets:
  // docs/TRAINING.md, "The search trees' proofs"): per search, at most
  // this many positions that the MCTS-Solver proved won or lost in its tree,
  // the longest proofs first and each once a game, become samples of the
  // value alone (flag kTreeProof), and a full search's proven root takes
  // its proof as its value target; 0: none.
  int tree_proofs = 0;
  // A run's later hours search deeper: from the first net whose checkpoint
  // is `hours` of run time old, self-play's full and cheap searches use a
  // step's `full` and `cheap` playouts instead of mcts.playouts and
  // mcts.cheap_playouts (KataGo raised its visits as its nets improved;
  // the A/B is in docs/TRAINING.md). Steps in order of hours; empty: the
  // mcts.* playouts throughout. The old keys late_hours, late_playouts,
  // late_cheap_playouts and later_* are read as a schedule of one or two
  // steps (config_yaml.cpp, ReadOldScheduleKeys; docs/COMPAT.md).
  std::vector<PlayoutsStep> playouts_schedule = {PlayoutsStep{}};

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// Section `replay`: the sliding window the trainer samples from.
struct ReplayConfig {
  // The window grows with the data, as KataGo's does: it holds every
  // sample until `window_start` self-play samples exist, then
  //   window_start * (1 + growth * ((N / window_start)^exponent - 1) / exponent)
  // of the N seen, at most `window`. window_start = 0 keeps `window` fixed.
  int64_t window = 250000;  // the most samples kept
  int64_t window_start = 25000;
  double window_growth = 0.4;     // KataGo's expand-per-row
  double window_exponent = 0.75;  // KataGo's taper
  int64_t min_samples = 4000;     // training starts when the window holds this many
  // The most training samples per new self-play sample (KataGo's
  // max-train-bucket-per-new-data, OpenSpiel's replay reuse): the trainer
  // waits for self-play when it is ahead.
  double max_train_ratio = 6.0;
  // The most training it may bank for later, in samples (KataGo's
  // max-train-bucket-size): a trainer that fell behind self-play, or a
  // fork that raised the ratio, catches up at most this much; 0: no cap,
  // the ratio counts over the run's whole history.
  int64_t max_train_credit = 20000;
  double validation_share = 0.05;  // share of shards held out for validation
  bool symmetries = true;          // augment each sample with a random one of the 8
  double scan_seconds = 5;         // how often the trainer looks for new shards

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// Section `train`: the optimiser and the schedule.
struct TrainConfig {
  int batch_size = 256;
  int64_t max_steps = 0;          // stop after this many steps (0: never)
  int threads = 2;                // intra-op threads of training
  std::string optimizer = "sgd";  // sgd | adamw
  // The forward pass's arithmetic: bf16 runs the convolutions and linear
  // layers in bfloat16 (autocast); weights, gradients, the optimizer and the
  // losses stay float32.
  std::string precision = "fp32";  // fp32 | bf16
  double learning_rate = 0.02;
  double momentum = 0.9;               // SGD momentum (AlphaZero)
  double weight_decay = 1e-4;          // L2 coefficient (AlphaZero c = 1e-4); AdamW: decoupled
  int warmup_steps = 100;              // linear warm-up from 0 (Goyal et al.)
  std::string lr_schedule = "cosine";  // constant | cosine | step
  // The decay runs over self-play samples, not steps or hours, so that it
  // means the same amount of data on every machine.
  int64_t lr_decay_samples = 1500000;  // cosine horizon, or step period
  double lr_decay_factor = 0.1;        // cosine floor / step factor
  // Cosine: when the run has a budget (run.max_hours, train.max_steps), the
  // decay also runs over the share of it spent, so that the rate reaches its
  // floor at the budget's end if the sample horizon has not come first.
  bool lr_to_budget = false;
  // ... over the last share of the budget only (1: all of it): the rate
  // follows the sample schedule until 1 - tail of the budget is spent, then
  // the budget's cosine runs from 1 - tail to the end (warmup-stable-decay).
  double lr_budget_tail = 1.0;
  double grad_clip = 10.0;  // clip the gradient norm (0: off)
  double policy_weight = 1.0;
  double value_weight = 1.0;
  double moves_left_weight = 0.1;  // KataGo weights its moves-left loss low
  // The weight of each training-only head's loss, by TrainingHead, when
  // the net has the head (net/training_heads.h gives the defaults:
  // KataGo's).
  std::array<double, kNumTrainingHeads> head_weights = DefaultHeadWeights();
  // The value target is (1 - w) * the game's outcome + w * the search's root
  // value (as win/loss probabilities): the root value is less noisy than one
  // game's result (lc0's q-ratio; "Lessons from AlphaZero", Prasad 2018,
  // averages the two). Validation losses use the outcome alone.
  double value_q_weight = 0.0;
  // Self-play, evaluation and exports use an exponential moving average of
  // the trained weights over about this many steps (0: the trained weights
  // themselves), as KataGo's self-play uses an average of recent weights.
  int average_steps = 0;
  int checkpoint_every = 200;  // steps between checkpoints
  // A fresh run's first net: this export or checkpoint's weights (grown
  // when it has fewer blocks than net.blocks) instead of a random
  // initialisation, with a fresh optimizer (KataGo's -initial-checkpoint).
  // Read only when the run has no checkpoint; "" starts from random.
  std::string initial_net;
  // The run's export at its end is the mean of up to this many newest
  // checkpoints from its second half (stochastic weight averaging; 1: the
  // last checkpoint alone). Its A/B: docs/TRAINING.md, "The A/B decisions".
  int export_average = 10;
  int keep_checkpoints = 0;    // newest checkpoints kept (0: all)
  int log_every = 20;          // steps between metrics lines
  int validation_batches = 4;  // validation batches at each checkpoint

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// Section `eval`: matches during the run.
struct EvalConfig {
  int every_checkpoints = 2;  // evaluate every k-th checkpoint (0: never)
  int games = 24;             // games per opponent, colours alternating
  std::vector<std::string> opponents = {"ab:time=0.1", "ab:depth=2", "ab:time=0.8"};
  bool previous_best = false;  // also play the previous evaluated checkpoint
  int playouts = 200;          // the net's playouts per move
  // Seconds per move of the net (its playouts then do not count): with
  // opponents such as ab:time=0.1 the ladder is at equal time per move.
  double time = 0.1;
  int random_plies = 2;              // random opening plies, so that games differ
  int threads = 1;                   // games played at once
  int max_plies = kDefaultMaxPlies;  // move cap of evaluation games
  // The largest share of the machine's cores that the evaluation in a
  // training run may take: after a round it waits until that share holds
  // (EvalPauseSeconds), so that self-play keeps the rest. 1: no wait.
  double max_share = 0.1;

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// Section `cluster`: how `loaz launch slurm` lays the run over a cluster's
// jobs (docs/CLUSTER.md). Empty strings leave the cluster's defaults.
struct ClusterConfig {
  int workers = 2;                        // self-play array tasks (one `loaz selfplay` each)
  int worker_cpus = 0;                    // cores a worker task asks for (0: selfplay.workers)
  int trainer_cpus = 0;                   // cores the trainer job asks for (0: train.threads + eval.threads)
  std::string partition;                  // sbatch --partition
  std::string account;                    // sbatch --account
  std::string qos;                        // sbatch --qos
  std::string time;                       // sbatch --time of each job, e.g. "1-00:00:00" (a requeue goes on)
  std::string trainer_gres;               // the trainer's --gres; "" asks gpu:1 where run.device is cuda
  int signal_seconds = 120;               // SIGUSR1 this long before a job's time limit: it ends cleanly and requeues
  std::vector<std::string> sbatch_lines;  // further #SBATCH options for every job, e.g. "--mem=8G"
  std::string setup;                      // a shell line every job runs first, e.g. "module load gcc"
  std::string loaz;                       // the loaz binary the jobs run ("": the one that launches)
  int trainer_restarts = 5;          // the trainer job runs a trainer that failed again, this many times (run/slurm.h)
  double trainer_gone_minutes = 10;  // self-play without a trainer ends once its heartbeat is this stale (0: never)
  // Every job's loaz runs inside this image ("": none; scripts/image.sh
  // makes one), under `runtime`, the run directory bound at kImageRunDir.
  std::string image;
  std::string runtime = "charliecloud";      // charliecloud | podman | apptainer
  std::vector<std::string> runtime_options;  // further options of the runtime's run command, e.g. --nv

  // Declares the fields (config_sections.cpp).
  void Visit(ParamVisitor& v);
};

// Returns the training window's size once `samples_seen` self-play samples
// exist (ReplayConfig).
int64_t WindowSize(const ReplayConfig& config, int64_t samples_seen);

}  // namespace loa::run
