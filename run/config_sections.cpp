#include "run/config_sections.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace loa::run {
namespace {

constexpr int kMaxThreads = 256;
constexpr int64_t kMaxCount = int64_t{1} << 40;

}  // namespace

void RunConfig::Visit(ParamVisitor& v) {
  v.String("name", name, false, "the run's name: the run directory is directory/name");
  v.String("directory", directory, false, "the folder that holds runs");
  v.Int64("seed", seed, 0, INT64_MAX, "every random generator of the run derives from it");
  v.Choice("device", device, {"auto", "cpu", "cuda"}, "where the net trains and plays (auto: cuda if present)");
  v.Double("max_hours", max_hours, 0, 1e6, "stop after this much run time (0: never)");
}

void SelfplayConfig::Visit(ParamVisitor& v) {
  v.Int("workers", workers, 0, kMaxThreads, "self-play threads, each advancing many games at once");
  v.Int("games_per_worker", games_per_worker, 1, 65536, "games one worker advances together (its batch)");
  v.Int("games_per_shard", games_per_shard, 1, 100000, "finished games written per replay shard");
  v.Int64("max_games", max_games, 0, kMaxCount, "stop self-play after this many games in the run (0: never)");
  evaluator.Visit(v, /*with_device=*/false);
  v.Double("resign_threshold", resign_threshold, -1, 0, "resign below this root value (-1: never)");
  v.Int("resign_consecutive", resign_consecutive, 1, 1000, "... for this many consecutive moves of one side");
  v.Double("resign_playout_share", resign_playout_share, 0, 1, "share of would-resign games played out (a check)");
  v.Double("checkpoint_poll_seconds", checkpoint_poll_seconds, 0.1, 86400, "how often a worker looks for a new net");
  v.Bool("uniform_first", uniform_first, "before the first trained checkpoint, search with uniform priors");
  v.Int("record_every", record_every, 0, 1000000, "keep the record of every k-th game (0: none)");
  v.Double("policy_surprise_weight", policy_surprise_weight, 0, 1,
           "share of a game's samples placed by policy surprise (KataGo)");
  v.Int64("proof_nodes", proof_nodes, 0, 100000000,
          "solve each sampled position within this many df-pn nodes; a proof is its value target (0: off)");
  v.Int("random_opening_plies", random_opening_plies, 0, 1000,
        "each game opens with this many random moves, unsearched and unrecorded (0: from the start)");
  v.Int("tree_proofs", tree_proofs, 0, 256,
        "per search, keep this many positions the MCTS-Solver proved in its tree as value targets (0: none)");
  RecordsOf<PlayoutsStep> schedule(playouts_schedule);
  v.Records("playouts_schedule", schedule,
            "from a net `hours` of run time old, searches use `full` and `cheap` playouts (steps in order of hours)");
}

void PlayoutsStep::Visit(ParamVisitor& v) {
  v.Double("hours", hours, 0, 1e6, "from a net this many hours of run time old");
  v.Int("full", full, 1, kMaxPlayouts, "playouts of a full search");
  v.Int("cheap", cheap, 1, kMaxPlayouts, "playouts of a cheap search");
}

void ReplayConfig::Visit(ParamVisitor& v) {
  v.Int64("window", window, 1, kMaxCount, "the most samples the trainer samples from");
  v.Int64("window_start", window_start, 0, kMaxCount, "the window grows with the data from here (0: fixed)");
  v.Double("window_growth", window_growth, 0, 10, "growth of the window beyond window_start");
  v.Double("window_exponent", window_exponent, 0.01, 1, "taper of the window's growth");
  v.Int64("min_samples", min_samples, 1, kMaxCount, "training starts when the window holds this many");
  v.Double("max_train_ratio", max_train_ratio, 0.01, 1e6, "most samples trained per new self-play sample");
  v.Int64("max_train_credit", max_train_credit, 0, kMaxCount,
          "most samples the trainer may train ahead on data it has (0: no cap)");
  v.Double("validation_share", validation_share, 0, 0.5, "share of shards held out for validation");
  v.Bool("symmetries", symmetries, "augment each sample with a random one of the 8 board symmetries");
  v.Double("scan_seconds", scan_seconds, 0.01, 86400, "how often the trainer looks for new shards");
}

void TrainConfig::Visit(ParamVisitor& v) {
  v.Int("batch_size", batch_size, 1, 65536, "samples per training step");
  v.Int64("max_steps", max_steps, 0, kMaxCount, "stop after this many steps (0: never)");
  v.Int("threads", threads, 1, kMaxThreads, "intra-op threads of training");
  v.Choice("optimizer", optimizer, {"sgd", "adamw"}, "the optimiser");
  v.Choice("precision", precision, {"fp32", "bf16"},
           "the forward pass in training: bf16 runs convolutions and linear layers in bfloat16 (autocast)");
  v.Double("learning_rate", learning_rate, 1e-8, 10, "peak learning rate");
  v.Double("momentum", momentum, 0, 0.999, "SGD momentum");
  v.Double("weight_decay", weight_decay, 0, 1, "L2 coefficient (AdamW: decoupled)");
  v.Int("warmup_steps", warmup_steps, 0, 10000000, "linear learning-rate warm-up from 0");
  v.Choice("lr_schedule", lr_schedule, {"constant", "cosine", "step"}, "learning-rate schedule after warm-up");
  v.Int64("lr_decay_samples", lr_decay_samples, 1, kMaxCount, "cosine horizon or step period, in self-play samples");
  v.Double("lr_decay_factor", lr_decay_factor, 0, 1, "cosine floor, or step factor");
  v.Bool("lr_to_budget", lr_to_budget,
         "cosine: reach the floor at the run's budget (run.max_hours, train.max_steps) if that comes first");
  v.Double("lr_budget_tail", lr_budget_tail, 0.01, 1,
           "lr_to_budget: the last share of the budget over which the rate falls to its floor");
  v.Double("grad_clip", grad_clip, 0, 1e6, "clip the gradient norm (0: off)");
  v.Double("policy_weight", policy_weight, 0, 100, "weight of the policy loss");
  v.Double("value_weight", value_weight, 0, 100, "weight of the value loss");
  v.Double("moves_left_weight", moves_left_weight, 0, 100, "weight of the moves-left loss");
  for (int h = 0; h < kNumTrainingHeads; ++h)
    v.Double(kTrainingHeads[h].weight_key, head_weights[h], 0, 100, kTrainingHeads[h].weight_help);
  v.Double("value_q_weight", value_q_weight, 0, 1, "value target: (1-w) * outcome + w * root value");
  v.Int("average_steps", average_steps, 0, 100000000,
        "self-play and exports use a moving average of the weights over about this many steps (0: off)");
  v.Int("checkpoint_every", checkpoint_every, 1, 100000000, "steps between checkpoints");
  v.String("initial_net", initial_net, true,
           "a fresh run starts from this export or checkpoint (grown to net.blocks) instead of a random net");
  v.Int("keep_checkpoints", keep_checkpoints, 0, 1000000, "newest checkpoints kept (0: all)");
  v.Int("export_average", export_average, 1, 1000,
        "the export at the run's end is the mean of up to this many newest checkpoints of its second half "
        "(1: the last alone)");
  v.Int("log_every", log_every, 1, 100000000, "steps between metrics lines");
  v.Int("validation_batches", validation_batches, 0, 100000, "validation batches at each checkpoint");
}

void EvalConfig::Visit(ParamVisitor& v) {
  v.Int("every_checkpoints", every_checkpoints, 0, 1000000, "evaluate every k-th checkpoint (0: never)");
  v.Int("games", games, 1, 100000, "games per opponent, colours alternating");
  v.StringList("opponents", opponents, "player specs the checkpoints play (the ladder)");
  v.Bool("previous_best", previous_best, "also play the previous evaluated checkpoint");
  v.Int("playouts", playouts, 1, 1000000, "the net's playouts per move");
  v.Double("time", time, 0, 3600, "the net's seconds per move (0: playouts)");
  v.Int("random_plies", random_plies, 0, 100, "random opening plies, so that games differ");
  v.Int("threads", threads, 1, kMaxThreads, "games played at once");
  v.Int("max_plies", max_plies, 0, 100000, "move cap of evaluation games");
  v.Double("max_share", max_share, 0.01, 1, "largest share of the cores the in-run evaluation takes (1: no wait)");
}

void ClusterConfig::Visit(ParamVisitor& v) {
  v.Int("workers", workers, 1, 100000, "self-play array tasks, one `loaz selfplay` each");
  v.Int("worker_cpus", worker_cpus, 0, 4096, "cores a worker task asks for (0: selfplay.workers)");
  v.Int("trainer_cpus", trainer_cpus, 0, 4096, "cores the trainer job asks for (0: train.threads + eval.threads)");
  v.String("partition", partition, true, "sbatch --partition of every job (empty: the cluster's default)");
  v.String("account", account, true, "sbatch --account (empty: none)");
  v.String("qos", qos, true, "sbatch --qos (empty: none)");
  v.String("time", time, true, "sbatch --time of each job, e.g. 1-00:00:00; a job at its limit requeues itself");
  v.String("trainer_gres", trainer_gres, true, "the trainer job's --gres (empty: gpu:1 where run.device is cuda)");
  v.Int("signal_seconds", signal_seconds, 10, 86400,
        "seconds before a job's time limit at which it ends cleanly and requeues itself");
  v.StringList("sbatch_lines", sbatch_lines, "further sbatch options for every job, e.g. --mem=8G");
  v.String("setup", setup, true, "a shell line every job runs before loaz, e.g. module load gcc");
  v.String("loaz", loaz, true, "the loaz binary the jobs run, on a path every node sees (empty: the launching one)");
  v.Int("trainer_restarts", trainer_restarts, 0, 1000,
        "times the trainer job runs a trainer that failed (killed, crashed) again, once its heartbeat is stale");
  v.Double("trainer_gone_minutes", trainer_gone_minutes, 0, 10080,
           "self-play processes without a trainer stop the run once its heartbeat is this stale (0: never)");
  v.String("image", image, true,
           "the image every job runs loaz in (scripts/image.sh), on a path every node sees (empty: none)");
  v.Choice("runtime", runtime, {"charliecloud", "podman", "apptainer"},
           "what runs cluster.image: a Charliecloud image folder or SquashFS file, a Podman image name, "
           "an Apptainer .sif");
  v.StringList("runtime_options", runtime_options, "further options of the runtime's run command, e.g. --nv");
}

int64_t WindowSize(const ReplayConfig& c, int64_t samples_seen) {
  if (c.window_start <= 0 || samples_seen <= c.window_start)
    return c.window_start > 0 ? std::min(c.window, c.window_start) : c.window;
  const double x = double(samples_seen) / double(c.window_start);
  const double grown =
      double(c.window_start) * (1 + c.window_growth * (std::pow(x, c.window_exponent) - 1) / c.window_exponent);
  return std::min(c.window, int64_t(grown));
}

}  // namespace loa::run
