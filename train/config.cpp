#include "train/config.h"

#include <cstdint>
#include <functional>
#include <set>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/file_util.h"
#include "train/config_yaml.h"

namespace loa::train {
namespace {

constexpr int kMaxThreads = 256;
constexpr int64_t kMaxCount = int64_t{1} << 40;

void Visit(RunConfig& c, FieldVisitor& v) {
  v.String("name", c.name, false);
  v.String("directory", c.directory, false);
  v.Int64("seed", c.seed, 0, INT64_MAX);
  v.Choice("device", c.device, {"auto", "cpu", "cuda"});
  v.Double("max_hours", c.max_hours, 0, 1e6);
}

void Visit(Rules& c, FieldVisitor& v) {
  std::string simultaneous = c.simultaneous == Simultaneous::kDraw ? "draw" : "mover";
  std::string start = c.start == StartKind::kStandard ? "standard" : "scrambled";
  v.Choice("simultaneous", simultaneous, {"draw", "mover"});
  v.Choice("start", start, {"standard", "scrambled"});
  v.Int("max_plies", c.max_plies, 0, 100000);
  c.simultaneous = simultaneous == "draw" ? Simultaneous::kDraw : Simultaneous::kMover;
  c.start = start == "standard" ? StartKind::kStandard : StartKind::kScrambled;
}

void Visit(NetConfig& c, FieldVisitor& v) {
  v.Int("blocks", c.blocks, 1, 64);
  v.Int("channels", c.channels, 8, 512);
  v.Int("global_pooling_every", c.global_pooling_every, 0, 64);
  v.Int("policy_channels", c.policy_channels, 1, 512);
  v.Int("value_channels", c.value_channels, 1, 512);
  v.Int("value_hidden", c.value_hidden, 1, 4096);
  v.Bool("moves_left", c.moves_left);
  v.Int("moves_left_channels", c.moves_left_channels, 1, 512);
  v.Int("moves_left_hidden", c.moves_left_hidden, 1, 4096);
}

// The search fields self-play uses; the seed comes from run.seed.
void Visit(SearchParams& c, FieldVisitor& v) {
  v.Int("playouts", c.playouts, 1, 1000000);
  v.Float("cpuct_init", c.cpuct_init, 0, 100);
  v.Float("cpuct_base", c.cpuct_base, 1, 1e9);
  v.Float("cpuct_factor", c.cpuct_factor, 0, 100);
  v.Float("fpu_reduction", c.fpu_reduction, 0, 2);
  v.Float("fpu_reduction_root", c.fpu_reduction_root, 0, 2);
  v.Bool("solver", c.solver);
  v.Bool("reuse_tree", c.reuse_tree);
  v.Float("dirichlet_alpha", c.dirichlet_alpha, 0.001, 10);
  v.Float("dirichlet_epsilon", c.dirichlet_epsilon, 0, 1);
  v.Float("temperature_start", c.temperature_start, 0, 10);
  v.Float("temperature_end", c.temperature_end, 0, 10);
  v.Int("temperature_halflife_plies", c.temperature_halflife_plies, 0, 10000);
  v.Int("temperature_cutoff_plies", c.temperature_cutoff_plies, 0, 10000);
  v.Float("full_search_fraction", c.full_search_fraction, 0.001, 1);
  v.Int("cheap_playouts", c.cheap_playouts, 1, 1000000);
  v.Float("forced_playouts_k", c.forced_playouts_k, 0, 100);
}

void Visit(SelfplayConfig& c, FieldVisitor& v) {
  v.Int("workers", c.workers, 0, kMaxThreads);
  v.Int("games_per_worker", c.games_per_worker, 1, 65536);
  v.Int("games_per_shard", c.games_per_shard, 1, 100000);
  v.Int64("max_games", c.max_games, 0, kMaxCount);
  v.Int("inference_threads", c.inference_threads, 1, kMaxThreads);
  v.Int("max_batch", c.max_batch, 1, 65536);
  v.Int64("cache_entries", c.cache_entries, 0, int64_t{1} << 32);
  v.Double("resign_threshold", c.resign_threshold, -1, 0);
  v.Int("resign_consecutive", c.resign_consecutive, 1, 1000);
  v.Double("resign_playout_share", c.resign_playout_share, 0, 1);
  v.Double("checkpoint_poll_seconds", c.checkpoint_poll_seconds, 0.1, 86400);
  v.Bool("uniform_first", c.uniform_first);
  v.Int("record_every", c.record_every, 0, 1000000);
}

void Visit(ReplayConfig& c, FieldVisitor& v) {
  v.Int64("window", c.window, 1, kMaxCount);
  v.Int64("min_samples", c.min_samples, 1, kMaxCount);
  v.Double("max_train_ratio", c.max_train_ratio, 0.01, 1e6);
  v.Double("validation_share", c.validation_share, 0, 0.5);
  v.Bool("symmetries", c.symmetries);
  v.Double("scan_seconds", c.scan_seconds, 0.01, 86400);
}

void Visit(TrainConfig& c, FieldVisitor& v) {
  v.Int("batch_size", c.batch_size, 1, 65536);
  v.Int64("max_steps", c.max_steps, 0, kMaxCount);
  v.Int("threads", c.threads, 1, kMaxThreads);
  v.Choice("optimizer", c.optimizer, {"sgd", "adamw"});
  v.Double("learning_rate", c.learning_rate, 1e-8, 10);
  v.Double("momentum", c.momentum, 0, 0.999);
  v.Double("weight_decay", c.weight_decay, 0, 1);
  v.Int("warmup_steps", c.warmup_steps, 0, 10000000);
  v.Choice("lr_schedule", c.lr_schedule, {"constant", "cosine", "step"});
  v.Int64("lr_decay_steps", c.lr_decay_steps, 1, kMaxCount);
  v.Double("lr_decay_factor", c.lr_decay_factor, 0, 1);
  v.Double("grad_clip", c.grad_clip, 0, 1e6);
  v.Double("policy_weight", c.policy_weight, 0, 100);
  v.Double("value_weight", c.value_weight, 0, 100);
  v.Double("moves_left_weight", c.moves_left_weight, 0, 100);
  v.Double("value_q_weight", c.value_q_weight, 0, 1);
  v.Int("checkpoint_every", c.checkpoint_every, 1, 100000000);
  v.Int("keep_checkpoints", c.keep_checkpoints, 0, 1000000);
  v.Int("log_every", c.log_every, 1, 100000000);
  v.Int("validation_batches", c.validation_batches, 0, 100000);
}

void Visit(EvalConfig& c, FieldVisitor& v) {
  v.Int("every_checkpoints", c.every_checkpoints, 0, 1000000);
  v.Int("games", c.games, 1, 100000);
  v.StringList("opponents", c.opponents);
  v.Bool("previous_best", c.previous_best);
  v.Int("playouts", c.playouts, 1, 1000000);
  v.Int("random_plies", c.random_plies, 0, 100);
  v.Int("threads", c.threads, 1, kMaxThreads);
  v.Int("max_plies", c.max_plies, 0, 100000);
}

// Calls f(name, visit) for every section in the order the resolved config
// lists them; visit(v) shows the section's fields to v.
void ForEachSection(Config& c, const std::function<void(const char*, const std::function<void(FieldVisitor&)>&)>& f) {
  f("run", [&](FieldVisitor& v) { Visit(c.run, v); });
  f("rules", [&](FieldVisitor& v) { Visit(c.rules, v); });
  f("net", [&](FieldVisitor& v) { Visit(c.net, v); });
  f("mcts", [&](FieldVisitor& v) { Visit(c.mcts, v); });
  f("selfplay", [&](FieldVisitor& v) { Visit(c.selfplay, v); });
  f("replay", [&](FieldVisitor& v) { Visit(c.replay, v); });
  f("train", [&](FieldVisitor& v) { Visit(c.train, v); });
  f("eval", [&](FieldVisitor& v) { Visit(c.eval, v); });
}

// Applies one "section.key=value" to the YAML root; the value is parsed as
// YAML, so "[a, b]" is a list and "3" a number.
void ApplyOverride(YAML::Node& root, const std::string& text, SourceMap& sources) {
  const size_t eq = text.find('='), dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    throw ParseError("--set " + text + ": expected section.key=value");
  const std::string section = text.substr(0, dot), key = text.substr(dot + 1, eq - dot - 1);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ParseError("--set " + text + ": " + e.msg);
  }
  if (!root[section] || !root[section].IsMap()) root[section] = YAML::Node(YAML::NodeType::Map);
  root[section][key] = value.IsNull() ? YAML::Node(text.substr(eq + 1)) : value;
  sources.Override(section + "." + key, text);
}

// Throws Error naming the source when fields disagree with each other.
void CheckConsistency(const Config& c, const std::string& source) {
  auto fail = [&](const std::string& why) { throw Error(source + ": " + why); };
  if (c.replay.min_samples > c.replay.window)
    fail("replay.min_samples (" + std::to_string(c.replay.min_samples) + ") exceeds replay.window (" +
         std::to_string(c.replay.window) + ")");
  if (c.mcts.cheap_playouts > c.mcts.playouts) fail("mcts.cheap_playouts exceeds mcts.playouts");
  try {
    c.net.Validate();
    c.mcts.Validate();
  } catch (const Error& e) {
    fail(e.what());
  }
}

}  // namespace

std::string Config::RunDirectory() const {
  if (!run.directory.empty() && run.directory.back() == '/') return run.directory + run.name;
  return run.directory + "/" + run.name;
}

Config ParseConfig(const std::string& text, const std::string& source, const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ParseError(source + ": not YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ParseError(source + ": expected a map of sections (run, rules, net, ...)");
  SourceMap sources(source);
  for (const std::string& text : overrides) ApplyOverride(root, text, sources);

  Config config;
  std::set<std::string> known;
  ForEachSection(config, [&](const char* name, const std::function<void(FieldVisitor&)>& visit) {
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
  return ParseConfig(ReadFile(path), path, overrides);
}

std::string ConfigToYaml(const Config& config) {
  Config copy = config;
  YAML::Emitter out;
  out << YAML::BeginMap;
  ForEachSection(copy, [&](const char* name, const std::function<void(FieldVisitor&)>& visit) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    YamlWriter writer(out);
    visit(writer);
    out << YAML::EndMap;
  });
  out << YAML::EndMap;
  return "# The resolved config of this run (every field); `loaz train --run DIR` reads it.\n" +
         std::string(out.c_str()) + "\n";
}

}  // namespace loa::train
