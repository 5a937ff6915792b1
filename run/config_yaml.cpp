#include "run/config_yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/error.h"

namespace loa::train {

void SourceMap::Override(const std::string& dotted_key, const std::string& text) {
  overrides_.insert({dotted_key, text});
}

void SourceMap::FromFile(const std::string& dotted_key, const std::string& file) { files_[dotted_key] = file; }

std::string SourceMap::SourceOf(const std::string& dotted_key) const {
  for (const auto& [key, text] : overrides_)
    if (key == dotted_key || key.rfind(dotted_key + ".", 0) == 0) return "--set " + text;
  if (const auto it = files_.find(dotted_key); it != files_.end()) return it->second;
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

void YamlWriter::Choice(const char* key, std::string& value, std::initializer_list<const char*>, const char*) {
  out_ << YAML::Key << key << YAML::Value << value;
}

void YamlWriter::StringList(const char* key, std::vector<std::string>& value, const char*) {
  out_ << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& item : value) out_ << YAML::DoubleQuoted << item;
  out_ << YAML::EndSeq;
}

}  // namespace loa::train
