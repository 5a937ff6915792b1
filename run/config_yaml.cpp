#include "run/config_yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "core/error.h"
#include "core/file_util.h"

namespace loa::run {

void SourceMap::Override(const std::string& dotted_key, const std::string& text) {
  overrides_.insert({dotted_key, text});
}

void SourceMap::FromFile(const std::string& dotted_key, const std::string& file) { files_[dotted_key] = file; }

std::string SourceMap::SourceOf(const std::string& dotted_key) const {
  const std::string list_key = dotted_key.substr(0, dotted_key.find('['));  // a.b of a.b[2].c
  for (const auto& [key, text] : overrides_)
    if (key == list_key || key.rfind(dotted_key + ".", 0) == 0) return "--set " + text;
  if (const auto it = files_.find(list_key); it != files_.end()) return it->second;
  return file_;
}

YamlReader::YamlReader(const YAML::Node& section, std::string section_name, const SourceMap& sources)
    : section_(section), name_(std::move(section_name)), sources_(sources) {}

void YamlReader::Fail(const std::string& key, const std::string& why, bool type_error) const {
  const std::string dotted = name_ + "." + key;
  const std::string message = sources_.SourceOf(dotted) + ": " + dotted + ": " + why;
  if (type_error) throw ParseError(message);
  throw Error(message);
}

YAML::Node YamlReader::Lookup(const char* key) {
  read_.insert(key);
  const YAML::Node& section = section_;  // const: lookups must not insert
  if (!section.IsDefined() || !section.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return section[key];
}

std::optional<std::string> YamlReader::Text(const char* key) {
  const YAML::Node node = Lookup(key);
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;
  if (!node.IsScalar()) Fail(key, "expected a single value, got a list or map", true);
  return node.Scalar();
}

std::optional<std::vector<std::string>> YamlReader::List(const char* key) {
  const YAML::Node node = Lookup(key);
  if (!node.IsDefined()) return std::nullopt;
  std::vector<std::string> items;
  if (node.IsNull()) return items;
  if (!node.IsSequence()) Fail(key, "expected a list of strings", true);
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) Fail(key, "expected a list of strings", true);
    items.push_back(item.Scalar());
  }
  return items;
}

void YamlReader::Records(const char* key, RecordList& list, const char*) {
  const YAML::Node node = Lookup(key);
  if (!node.IsDefined()) return;
  if (node.IsNull()) {
    list.resize(0);
    return;
  }
  if (!node.IsSequence()) Fail(key, "expected a list of records, such as [{key: value, ...}, ...]", true);
  list.resize(node.size());
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item_key = std::string(key) + "[" + std::to_string(i) + "]";
    const YAML::Node item = node[i];
    if (!item.IsMap()) Fail(item_key, "expected a record {key: value, ...}", true);
    YamlReader reader(item, name_ + "." + item_key, sources_);
    list.VisitItem(reader, i);
    reader.CheckNoUnknownKeys();
  }
}

void YamlReader::CheckNoUnknownKeys() const {
  if (!section_.IsDefined() || section_.IsNull()) return;
  if (!section_.IsMap()) {
    throw ParseError(sources_.SourceOf(name_) + ": section '" + name_ + "' must be a map of key: value");
  }
  for (const auto& item : section_) {
    const std::string key = item.first.Scalar();
    if (!read_.count(key)) {
      throw ParseError(sources_.SourceOf(name_ + "." + key) + ": unknown key '" + name_ + "." + Excerpt(key) + "'");
    }
  }
}

void YamlWriter::Int64(const char* key, int64_t& value, int64_t, int64_t, const char*) {
  out_ << YAML::Key << key << YAML::Value << value;
}

void YamlWriter::Double(const char* key, double& value, double, double, const char*) {
  out_ << YAML::Key << key << YAML::Value << FormatDouble(value);
}

void YamlWriter::Bool(const char* key, bool& value, const char*) {
  out_ << YAML::Key << key << YAML::Value << (value ? "true" : "false");
}

void YamlWriter::String(const char* key, std::string& value, bool, const char*) {
  out_ << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

void YamlWriter::Choice(const char* key, std::string& value, const std::vector<std::string>&, const char*) {
  out_ << YAML::Key << key << YAML::Value << value;
}

void YamlWriter::StringList(const char* key, std::vector<std::string>& value, const char*) {
  out_ << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& item : value) out_ << YAML::DoubleQuoted << item;
  out_ << YAML::EndSeq;
}

void YamlWriter::Records(const char* key, RecordList& list, const char*) {
  out_ << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out_ << YAML::Flow << YAML::BeginMap;
    list.VisitItem(*this, i);
    out_ << YAML::EndMap;
  }
  out_ << YAML::EndSeq;
}

namespace {

namespace fs = std::filesystem;

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

YAML::Node ReadConfigYaml(const std::string& text, const std::string& source, const std::vector<std::string>& overrides,
                          SourceMap& sources) {
  YAML::Node root = ResolveBase(ParseYamlMap(text, source), source, sources, 0);
  for (const std::string& setting : overrides) ApplyOverride(root, setting, sources);
  ReadOldScheduleKeys(root, sources);
  return root;
}

}  // namespace loa::run
