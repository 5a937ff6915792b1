#include "run/config.h"

#include <functional>
#include <set>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/file_util.h"
#include "run/config_yaml.h"

namespace loa::run {
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

std::string Config::RunDirectory() const {
  if (!run.directory.empty() && run.directory.back() == '/') return run.directory + run.name;
  return run.directory + "/" + run.name;
}

Config ParseConfig(const std::string& text, const std::string& source, const std::vector<std::string>& overrides) {
  SourceMap sources(source);
  const YAML::Node root = ReadConfigYaml(text, source, overrides, sources);

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
