#include "run/config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/file_util.h"
#include "run/config_yaml.h"

namespace loa::run {
namespace {

namespace fs = std::filesystem;

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

namespace {

// Calls f(name, visit) for every section in the order the resolved config
// lists them; visit(v) shows the section's fields to v.
void ForEachSection(Config& c, const std::function<void(const char*, const std::function<void(ParamVisitor&)>&)>& f) {
  f("run", [&](ParamVisitor& v) { c.run.Visit(v); });
  f("rules", [&](ParamVisitor& v) { c.rules.Visit(v); });
  f("net", [&](ParamVisitor& v) { c.net.Visit(v); });
  f("mcts", [&](ParamVisitor& v) {  // the seed comes from run.seed
    c.mcts.VisitSearch(v);
    c.mcts.VisitSelfplay(v);
  });
  f("selfplay", [&](ParamVisitor& v) { c.selfplay.Visit(v); });
  f("replay", [&](ParamVisitor& v) { c.replay.Visit(v); });
  f("train", [&](ParamVisitor& v) { c.train.Visit(v); });
  f("eval", [&](ParamVisitor& v) { c.eval.Visit(v); });
  f("cluster", [&](ParamVisitor& v) { c.cluster.Visit(v); });
}

// Applies one "section.key=value" to the YAML root; the value is parsed as
// YAML, so "[a, b]" is a list and "3" a number.
void ApplyOverride(YAML::Node& root, const std::string& text, SourceMap& sources) {
  const std::optional<KeyValue> setting = SplitKeyValue(text);
  const size_t dot = setting ? setting->key.find('.') : std::string::npos;
  if (dot == std::string::npos || dot == 0 || dot + 1 == setting->key.size())
    throw ParseError("--set " + text + ": expected section.key=value");
  const std::string section = setting->key.substr(0, dot), key = setting->key.substr(dot + 1);
  YAML::Node value;
  try {
    value = YAML::Load(setting->value);
  } catch (const YAML::Exception& e) {
    throw ParseError("--set " + text + ": " + e.msg);
  }
  if (!root[section] || !root[section].IsMap()) root[section] = YAML::Node(YAML::NodeType::Map);
  root[section][key] = value.IsNull() ? YAML::Node(setting->value) : value;
  sources.Override(section + "." + key, text);
}

// The deepest nesting of maps a config has (a section, a record in a
// list, its fields) is three; an alias can make a map that holds itself.
constexpr int kMaxMapDepth = 8;

// Throws ParseError naming the source and the key at a key that a map of
// node (or of a map inside it) holds twice; YAML forbids it, and yaml-cpp
// would keep one of them silently. Also at maps nested deeper than
// kMaxMapDepth: an alias to a map inside itself (`&a {k: *a}`) nests
// without end.
void CheckNoDuplicateKeys(const YAML::Node& node, const std::string& source, const std::string& prefix, int depth = 1) {
  if (depth > kMaxMapDepth)
    throw ParseError(source + ": key '" + Excerpt(prefix, 60) + "...' nests maps more than " +
                     std::to_string(kMaxMapDepth) + " deep (an alias to a map that holds it?)");
  std::set<std::string> keys;
  for (const auto& item : node) {
    if (!item.first.IsScalar()) continue;
    const std::string key = item.first.Scalar();
    if (!keys.insert(key).second)
      throw ParseError(source + ": key '" + Excerpt(prefix + key) + "' appears twice (line " +
                       std::to_string(item.first.Mark().line + 1) + ")");
    if (item.second.IsMap()) CheckNoDuplicateKeys(item.second, source, prefix + key + ".", depth + 1);
  }
}

// Throws Error naming the source when the run's name is not a plain name:
// it must name a folder inside run.directory, never a path out of it.
void CheckRunName(const std::string& name, const std::string& source) {
  const bool plain =
      !name.empty() && name != "." && name != ".." && name.size() <= 200 &&
      name.find_first_of("/\\") == std::string::npos &&
      std::all_of(name.begin(), name.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 32; });
  if (!plain)
    throw Error(source + ": run.name '" + Excerpt(name, 40) +
                "' is not a plain name: it names a folder in run.directory (no '/', '\\' or control characters; not "
                "'.' or '..')");
}

// Throws Error naming the source when fields disagree with each other.
void CheckConsistency(const Config& c, const std::string& source) {
  auto fail = [&](const std::string& why) { throw Error(source + ": " + why); };
  CheckRunName(c.run.name, source);
  if (c.replay.min_samples > c.replay.window)
    fail("replay.min_samples (" + std::to_string(c.replay.min_samples) + ") exceeds replay.window (" +
         std::to_string(c.replay.window) + ")");
  if (c.replay.max_train_credit > 0 && c.replay.max_train_credit < c.train.batch_size)
    fail("replay.max_train_credit (" + std::to_string(c.replay.max_train_credit) + ") is below train.batch_size (" +
         std::to_string(c.train.batch_size) + "): the trainer could never bank a step (0: no cap)");
  if (c.mcts.cheap_playouts > c.mcts.playouts) fail("mcts.cheap_playouts exceeds mcts.playouts");
  const SelfplayConfig& sp = c.selfplay;
  for (std::size_t i = 0; i < sp.playouts_schedule.size(); ++i) {
    const PlayoutsStep& step = sp.playouts_schedule[i];
    const std::string name = "selfplay.playouts_schedule[" + std::to_string(i) + "]";
    if (step.cheap > step.full) fail(name + ".cheap exceeds its full");
    if (!(step.hours > (i ? sp.playouts_schedule[i - 1].hours : 0.0)))
      fail(name + ".hours (" + FormatDouble(step.hours) + ") must be above 0 and above the step before it");
  }
  try {
    c.net.Validate();
    c.mcts.Validate();
  } catch (const Error& e) {
    fail(e.what());
  }
}

}  // namespace

int64_t WindowSize(const ReplayConfig& c, int64_t samples_seen) {
  if (c.window_start <= 0 || samples_seen <= c.window_start)
    return c.window_start > 0 ? std::min(c.window, c.window_start) : c.window;
  const double x = double(samples_seen) / double(c.window_start);
  const double grown =
      double(c.window_start) * (1 + c.window_growth * (std::pow(x, c.window_exponent) - 1) / c.window_exponent);
  return std::min(c.window, int64_t(grown));
}

std::string Config::RunDirectory() const {
  if (!run.directory.empty() && run.directory.back() == '/') return run.directory + run.name;
  return run.directory + "/" + run.name;
}

namespace {

// The longest chain of configs naming a base (a longer one is a cycle).
constexpr int kMaxBaseDepth = 8;

// Counts a YAML stream's documents without building them, and those that
// are a lone null where a token that makes no node stands.
class DocumentCounter : public YAML::EventHandler {
 public:
  int documents = 0, stray = 0;
  void OnDocumentStart(const YAML::Mark&) override {
    ++documents;
    nodes_ = 0;
    null_ = false;
  }
  void OnDocumentEnd() override { stray += nodes_ == 1 && null_; }
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {
    ++nodes_;
    null_ = true;
  }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++nodes_; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { ++nodes_; }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    ++nodes_;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    ++nodes_;
  }
  void OnMapEnd() override {}

 private:
  int nodes_ = 0;
  bool null_ = false;
};

// Returns the YAML map of a config's text, checked for duplicate keys.
YAML::Node ParseYamlMap(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    // yaml-cpp 0.7's LoadAll never ends on a token that makes no node (a
    // lone ','): it yields an empty document forever, growing
    // (jbeder/yaml-cpp#1040, found by tests/fuzz/fuzz_config). The
    // documents are counted first, at most three, and one is loaded.
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentCounter counter;
    while (counter.documents < 3 && parser.HandleNextDocument(counter)) {
    }
    if (counter.stray > 0 && counter.documents > 1 && text.find("---") == std::string::npos)
      throw ParseError(source + ": not YAML: a token that makes no value (a stray ',' or the like)");
    if (counter.documents > 1)
      throw ParseError(source + ": holds " + (counter.documents > 2 ? "3 or more" : "2") +
                       " YAML documents ('---'); a config is one");
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ParseError(source + ": not YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
  }
  if (!root.IsDefined() || root.IsNull())
    throw ParseError(source + ": empty config (a config sets at least run.name; see configs/tiny.yaml)");
  if (root.IsMap()) CheckNoDuplicateKeys(root, source, "");
  if (!root.IsMap()) throw ParseError(source + ": expected a map of sections (run, rules, net, ...)");
  return root;
}

// Records that every key of root's sections comes from source.
void RecordSources(const YAML::Node& root, const std::string& source, SourceMap& sources) {
  for (const auto& section : root) {
    if (!section.second.IsMap()) continue;
    for (const auto& item : section.second)
      sources.FromFile(section.first.Scalar() + "." + item.first.Scalar(), source);
  }
}

// Replaces `base: FILE` (a path relative to the config's own folder) by the
// base config's sections, with the config's own keys over them; records in
// sources which file each key came from.
YAML::Node ResolveBase(YAML::Node root, const std::string& source, SourceMap& sources, int depth) {
  const YAML::Node& const_root = root;
  const YAML::Node base_key = const_root["base"];
  if (!base_key.IsDefined()) {
    RecordSources(root, source, sources);
    return root;
  }
  if (!base_key.IsScalar() || base_key.Scalar().empty())
    throw ParseError(source + ": base: expected the file name of a config, such as default.yaml");
  if (depth >= kMaxBaseDepth)
    throw ParseError(source + ": base: configs name bases " + std::to_string(kMaxBaseDepth) + " deep (a cycle?)");
  const std::string base_path = (fs::path(source).parent_path() / base_key.Scalar()).lexically_normal().string();
  YAML::Node merged;
  try {
    merged = ResolveBase(ParseYamlMap(ReadFile(base_path, kMaxTextBytes), base_path), base_path, sources, depth + 1);
  } catch (const IoError& e) {
    throw ParseError(source + ": base: " + e.what());
  }
  RecordSources(root, source, sources);  // over the base's
  for (const auto& section : root) {
    const std::string name = section.first.Scalar();
    if (name == "base") continue;
    if (!section.second.IsMap() || !merged[name] || !merged[name].IsMap()) {
      merged[name] = section.second;
      continue;
    }
    for (const auto& item : section.second) merged[name][item.first.Scalar()] = item.second;
  }
  return merged;
}

// Reads the playouts schedule's old keys (selfplay.late_hours, late_playouts,
// late_cheap_playouts, later_hours, later_playouts, later_cheap_playouts;
// before the schedule was one list) into selfplay.playouts_schedule: the
// old keys given change the schedule's first step (late_*) and second
// (later_*), a step whose hours are 0 being none, as the old keys meant.
// The old keys start from the schedule the config has so far (from a base
// config, say), else from their old defaults (1 hour, 320 and 64; later:
// none, 640 and 128). Throws ParseError naming a key that is not a number,
// or a schedule of more than two steps that old keys would change.
void ReadOldScheduleKeys(YAML::Node& root, const SourceMap& sources) {
  const YAML::Node& const_root = root;
  if (!const_root["selfplay"] || !const_root["selfplay"].IsMap()) return;
  YAML::Node selfplay = root["selfplay"];
  const YAML::Node& old = selfplay;
  struct OldStep {
    const char *hours, *full, *cheap;
    double values[3];  // hours, full, cheap
  };
  OldStep steps[] = {{"late_hours", "late_playouts", "late_cheap_playouts", {1, 320, 64}},
                     {"later_hours", "later_playouts", "later_cheap_playouts", {0, 640, 128}}};
  bool any = false;
  for (const OldStep& step : steps)
    for (const char* key : {step.hours, step.full, step.cheap}) any = any || bool(old[key]);
  if (!any) return;
  auto number = [&](const YAML::Node& node, const std::string& key) {
    try {
      return node.as<double>();
    } catch (const YAML::Exception&) {
      throw ParseError(sources.SourceOf("selfplay." + key) + ": selfplay." + key + ": expected a number, got '" +
                       Excerpt(node.IsScalar() ? node.Scalar() : "a list or map") + "'");
    }
  };
  if (const YAML::Node schedule = old["playouts_schedule"]) {
    if (!schedule.IsSequence() || schedule.size() > 2)
      throw ParseError(sources.SourceOf("selfplay.playouts_schedule") +
                       ": selfplay.late_* and later_* (the old keys) change a playouts_schedule of one or two steps, "
                       "not this one: set the schedule alone");
    for (OldStep& step : steps) step.values[0] = 0;
    for (std::size_t i = 0; i < schedule.size(); ++i) {
      const std::string name = "playouts_schedule[" + std::to_string(i) + "].";
      const char* fields[] = {"hours", "full", "cheap"};
      for (int f = 0; f < 3; ++f)
        if (schedule[i].IsMap() && schedule[i][fields[f]])
          steps[i].values[f] = number(schedule[i][fields[f]], name + fields[f]);
    }
  }
  auto text = [](double v) { return v == std::floor(v) ? std::to_string(int64_t(v)) : FormatDouble(v); };
  YAML::Node schedule(YAML::NodeType::Sequence);
  for (OldStep& step : steps) {
    const char* keys[] = {step.hours, step.full, step.cheap};
    for (int f = 0; f < 3; ++f) {
      if (old[keys[f]]) step.values[f] = number(old[keys[f]], keys[f]);
      selfplay.remove(keys[f]);
    }
    if (step.values[0] <= 0) continue;
    YAML::Node item(YAML::NodeType::Map);
    item["hours"] = FormatDouble(step.values[0]);
    item["full"] = text(step.values[1]);
    item["cheap"] = text(step.values[2]);
    schedule.push_back(item);
  }
  selfplay["playouts_schedule"] = schedule;
}

}  // namespace

Config ParseConfig(const std::string& text, const std::string& source, const std::vector<std::string>& overrides) {
  SourceMap sources(source);
  YAML::Node root = ResolveBase(ParseYamlMap(text, source), source, sources, 0);
  for (const std::string& text : overrides) ApplyOverride(root, text, sources);
  ReadOldScheduleKeys(root, sources);

  Config config;
  std::set<std::string> known;
  ForEachSection(config, [&](const char* name, const std::function<void(ParamVisitor&)>& visit) {
    known.insert(name);
    const YAML::Node& const_root = root;
    YamlReader reader(const_root[name], name, sources);
    visit(reader);
    reader.CheckNoUnknownKeys();
  });
  for (const auto& item : root) {
    const std::string name = item.first.Scalar();
    if (!known.count(name)) throw ParseError(sources.SourceOf(name) + ": unknown section '" + name + "'");
  }
  config.mcts.seed = uint64_t(config.run.seed);
  CheckConsistency(config, source);
  return config;
}

Config LoadConfig(const std::string& path, const std::vector<std::string>& overrides) {
  return ParseConfig(ReadFile(path, kMaxTextBytes), path, overrides);
}

std::vector<ConfigSection> DescribeConfig(const Config& config) {
  Config copy = config;
  std::vector<ConfigSection> sections;
  ForEachSection(copy, [&](const char* name, const std::function<void(ParamVisitor&)>& visit) {
    ParamLister lister;
    visit(lister);
    sections.push_back({name, lister.params()});
  });
  return sections;
}

bool ResumeMayChange(const std::string& section, const std::string& key) {
  if (section == "rules" || section == "net") return false;
  return !(section == "run" && (key == "name" || key == "directory"));
}

std::string ResumeConflict(const Config& saved, const Config& asked) {
  const std::vector<ConfigSection> before = DescribeConfig(saved), after = DescribeConfig(asked);
  for (size_t i = 0; i < before.size(); ++i)
    for (size_t j = 0; j < before[i].params.size(); ++j) {
      const ParamInfo &was = before[i].params[j], &now = after[i].params[j];
      if (!ResumeMayChange(before[i].name, was.key) && was.default_value != now.default_value)
        return before[i].name + "." + was.key + ": " + Excerpt(was.default_value, 40) + " in the run, " +
               Excerpt(now.default_value, 40) + " asked";
    }
  return "";
}

std::string SoundConfigText(const std::string& path) {
  const std::optional<std::string> text = ReadFileUnlessDamaged(path, nullptr);
  if (!text) return "";
  try {
    ParseConfig(*text, path);
    return *text;
  } catch (const Error&) {
    return "";
  }
}

std::string ConfigToYaml(const Config& config) {
  Config copy = config;
  YAML::Emitter out;
  out << YAML::BeginMap;
  ForEachSection(copy, [&](const char* name, const std::function<void(ParamVisitor&)>& visit) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    YamlWriter writer(out);
    visit(writer);
    out << YAML::EndMap;
  });
  out << YAML::EndMap;
  return "# The resolved config of this run (every field); `loaz train --run DIR` reads it.\n" +
         std::string(out.c_str()) + "\n" + kConfigEndLine;
}

}  // namespace loa::run
