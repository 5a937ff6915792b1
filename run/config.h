#pragma once
// The config of a training run: one plain struct per YAML section. The
// defaults are configs/default.yaml's, key for key (a test compares them),
// so that `loaz config` shows what a user gets. Every field is
// declared once, with its range and help, in its struct's Visit function
// (core/param_visitor.h): config_sections.cpp for run/'s own sections,
// core/game.cpp (rules), net/net_config.cpp (net), mcts/search_params.cpp
// (mcts). Its YAML is read and written in config_yaml.cpp.

#include <string>
#include <vector>

#include "core/game.h"
#include "mcts/search_params.h"
#include "net/net_config.h"
#include "run/config_sections.h"

namespace loa::run {

// The whole config.
struct Config {
  RunConfig run;
  // The rules; self-play needs a move cap (docs/RULES.md, options).
  Rules rules = [] {
    Rules r;
    r.max_plies = kDefaultMaxPlies;
    return r;
  }();
  // The net and the search of self-play on 2 CPU cores (configs/default.yaml):
  // a small net, and KataGo's playout cap randomisation. The structs' own
  // defaults are the engine's.
  NetConfig net = [] {
    NetConfig n;
    n.input_features = "connection";
    n.blocks = 3;
    n.channels = 32;
    n.global_pooling_every = 2;
    n.policy_channels = n.value_channels = 16;
    n.value_hidden = 64;
    n.moves_left_channels = 4;
    n.moves_left_hidden = 32;
    return n;
  }();
  SearchParams mcts = [] {
    SearchParams p;
    p.playouts = 160;
    p.cheap_playouts = 32;
    p.full_search_fraction = 0.25;
    p.temperature_cutoff_plies = 16;
    return p;
  }();
  SelfplayConfig selfplay;
  ReplayConfig replay;
  TrainConfig train;
  EvalConfig eval;
  ClusterConfig cluster;

  // Returns run.directory/run.name.
  std::string RunDirectory() const;
};

// Returns the training window's size once `samples_seen` self-play samples
// exist (ReplayConfig).
int64_t WindowSize(const ReplayConfig& config, int64_t samples_seen);

// Reads the YAML config at `path` with `overrides` ("section.key=value",
// from --set) applied on top. Throws ParseError naming the file (or the
// --set) and the key for an unknown section or key or a value of the wrong
// type, and Error for a value out of range.
Config LoadConfig(const std::string& path, const std::vector<std::string>& overrides = {});

// The last line of every config ConfigToYaml writes: a saved config
// without it was cut short, even where what is left still reads.
inline constexpr const char* kConfigEndLine = "# (the end of the config)\n";

// Returns the text of the config file at path when it reads as a config
// (a sound copy to keep), else "".
std::string SoundConfigText(const std::string& path);

// Parses YAML text; `source` names it in messages. As LoadConfig.
Config ParseConfig(const std::string& text, const std::string& source, const std::vector<std::string>& overrides = {});

// Returns the config as YAML, every field written (the resolved config).
std::string ConfigToYaml(const Config& config);

// One section of the config as `loaz config` lists it.
struct ConfigSection {
  std::string name;
  std::vector<ParamInfo> params;  // defaults of `config`
};

// Returns every section and field of config, with its range, value and help.
std::vector<ConfigSection> DescribeConfig(const Config& config = Config());

// Returns whether resuming a run may change section.key: not the rules, the
// net's architecture or the run's name and directory (a run directory holds
// one architecture under one set of rules).
bool ResumeMayChange(const std::string& section, const std::string& key);

// Returns "section.key: A in the run, B asked" for the first key that
// ResumeMayChange forbids and that differs between a run's saved config and
// the config asked for, or "" when none does.
std::string ResumeConflict(const Config& saved, const Config& asked);

}  // namespace loa::run
