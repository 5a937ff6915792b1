#include "run/config_yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/error.h"

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

}  // namespace loa::run
