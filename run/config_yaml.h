#pragma once
// The config's YAML, all of it: the text read into one map (its base
// configs merged, --set applied, duplicate keys refused, the old schedule
// keys read), FieldVisitors that read a section node with type and range
// checks and write a section into an emitter. Used by config.cpp only.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/param_visitor.h"

namespace loa::run {

// Says where a key's value came from, for messages: the config file, or the
// --set that overrode it.
class SourceMap {
 public:
  explicit SourceMap(std::string file) : file_(std::move(file)) {}
  // Records that section.key was set by `text` (the whole --set argument).
  void Override(const std::string& dotted_key, const std::string& text);
  // Records that section.key came from `file` (a base config).
  void FromFile(const std::string& dotted_key, const std::string& file);
  // Returns "--set a.b=c" for an overridden key, else the file it came
  // from: a base config's, or the config's own. A record's field
  // (a.b[2].c) comes from where its list a.b came from.
  std::string SourceOf(const std::string& dotted_key) const;

 private:
  std::string file_;
  std::set<std::pair<std::string, std::string>> overrides_;
  std::map<std::string, std::string> files_;
};

// Reads the fields of one section from a YAML map, leaving absent keys at
// their defaults. Throws ParseError for a value of the wrong type and Error
// for one out of range, naming the source and section.key.
class YamlReader : public TextParamReader {
 public:
  YamlReader(const YAML::Node& section, std::string section_name, const SourceMap& sources);

  // Throws ParseError naming the first key of the section no field read.
  void CheckNoUnknownKeys() const;

 protected:
  std::optional<std::string> Text(const char* key) override;
  std::optional<std::vector<std::string>> List(const char* key) override;
  // Reads a YAML list of maps, each record's fields named key[i].field.
  void Records(const char* key, RecordList& list, const char* help) override;
  [[noreturn]] void Fail(const std::string& key, const std::string& why, bool type_error) const override;

 private:
  // Returns the section's node for key (undefined when absent), recording
  // that the key was declared.
  YAML::Node Lookup(const char* key);

  YAML::Node section_;
  std::string name_;
  const SourceMap& sources_;
  std::set<std::string> read_;
};

// Writes the fields of one section as a YAML map into an emitter.
class YamlWriter : public ParamVisitor {
 public:
  explicit YamlWriter(YAML::Emitter& out) : out_(out) {}

  void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) override;
  void Double(const char* key, double& value, double min, double max, const char* help) override;
  void Bool(const char* key, bool& value, const char* help) override;
  void String(const char* key, std::string& value, bool allow_empty, const char* help) override;
  void Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char* help) override;
  void StringList(const char* key, std::vector<std::string>& value, const char* help) override;
  // Writes [{a: 1, b: 2}, ...] in flow style.
  void Records(const char* key, RecordList& list, const char* help) override;

 private:
  YAML::Emitter& out_;
};

// Returns the YAML map of a config's text, `source` naming it in messages:
// its `base:` configs merged under it (a base's path relative to its
// config's folder), then each "section.key=value" of overrides applied
// (the value read as YAML), then the old playouts-schedule keys read into
// selfplay.playouts_schedule (docs/COMPAT.md); records in sources where
// each key came from. Throws ParseError naming the file or the --set.
YAML::Node ReadConfigYaml(const std::string& text, const std::string& source, const std::vector<std::string>& overrides,
                          SourceMap& sources);

}  // namespace loa::run
