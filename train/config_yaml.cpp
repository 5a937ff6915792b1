#include "train/config_yaml.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/error.h"

namespace loa::train {
namespace {

// Returns the shortest decimal text that reads back as exactly d.
std::string FormatDouble(double d) {
  char buffer[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, d);
    if (std::strtod(buffer, nullptr) == d) break;
  }
  std::string text = buffer;
  // Keep it a float for YAML readers: "1" would read back as an integer.
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

// Parses an integer written plainly or as an integral float ("1e5"); returns
// false when text is neither.
bool ParseInteger(const std::string& text, int64_t& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (*end == '\0' && errno == 0) {
    out = i;
    return true;
  }
  const double d = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e18) return false;
  out = int64_t(d);
  return true;
}

// Parses a decimal number; returns false when text is not one.
bool ParseNumber(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return *end == '\0' && std::isfinite(out);
}

template <typename T>
std::string RangeText(T min, T max) {
  return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

std::string RangeText(double min, double max) { return "[" + FormatDouble(min) + ", " + FormatDouble(max) + "]"; }

}  // namespace

void SourceMap::Override(const std::string& dotted_key, const std::string& text) {
  overrides_.insert({dotted_key, text});
}

std::string SourceMap::SourceOf(const std::string& dotted_key) const {
  for (const auto& [key, text] : overrides_)
    if (key == dotted_key || key.rfind(dotted_key + ".", 0) == 0) return "--set " + text;
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

std::optional<std::string> YamlReader::Scalar(const char* key, const char* expected) {
  read_.insert(key);
  const YAML::Node& section = section_;  // const: lookups must not insert
  if (!section.IsDefined() || !section.IsMap()) return std::nullopt;
  const YAML::Node node = section[key];
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;
  if (!node.IsScalar()) Fail(key, std::string("expected ") + expected + ", got a list or map", true);
  return node.Scalar();
}

void YamlReader::Int(const char* key, int& value, int min, int max) {
  int64_t wide = value;
  Int64(key, wide, min, max);
  value = int(wide);
}

void YamlReader::Int64(const char* key, int64_t& value, int64_t min, int64_t max) {
  const auto text = Scalar(key, "an integer");
  if (!text) return;
  int64_t parsed = 0;
  if (!ParseInteger(*text, parsed)) Fail(key, "expected an integer, got '" + *text + "'", true);
  if (parsed < min || parsed > max)
    Fail(key, std::to_string(parsed) + " is out of range " + RangeText(min, max), false);
  value = parsed;
}

void YamlReader::Double(const char* key, double& value, double min, double max) {
  const auto text = Scalar(key, "a number");
  if (!text) return;
  double parsed = 0;
  if (!ParseNumber(*text, parsed)) Fail(key, "expected a number, got '" + *text + "'", true);
  if (parsed < min || parsed > max) Fail(key, FormatDouble(parsed) + " is out of range " + RangeText(min, max), false);
  value = parsed;
}

void YamlReader::Bool(const char* key, bool& value) {
  const auto scalar = Scalar(key, "true or false");
  if (!scalar) return;
  const std::string& text = *scalar;
  if (text == "true" || text == "True" || text == "yes" || text == "on") {
    value = true;
  } else if (text == "false" || text == "False" || text == "no" || text == "off") {
    value = false;
  } else {
    Fail(key, "expected true or false, got '" + text + "'", true);
  }
}

void YamlReader::String(const char* key, std::string& value, bool allow_empty) {
  const auto text = Scalar(key, "a string");
  if (!text) return;
  if (text->empty() && !allow_empty) Fail(key, "must not be empty", false);
  value = *text;
}

void YamlReader::Choice(const char* key, std::string& value, std::initializer_list<const char*> choices) {
  const auto text = Scalar(key, "a string");
  if (!text) return;
  std::string allowed;
  for (const char* choice : choices) {
    if (*text == choice) {
      value = choice;
      return;
    }
    allowed += std::string(allowed.empty() ? "" : ", ") + choice;
  }
  Fail(key, "'" + *text + "' is not one of " + allowed, false);
}

void YamlReader::StringList(const char* key, std::vector<std::string>& value) {
  read_.insert(key);
  const YAML::Node& section = section_;
  if (!section.IsDefined() || !section.IsMap()) return;
  const YAML::Node node = section[key];
  if (!node.IsDefined()) return;
  if (node.IsNull()) {
    value.clear();
    return;
  }
  if (!node.IsSequence()) Fail(key, "expected a list of strings", true);
  std::vector<std::string> parsed;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) Fail(key, "expected a list of strings", true);
    parsed.push_back(item.Scalar());
  }
  value = parsed;
}

void YamlReader::CheckNoUnknownKeys() const {
  if (!section_.IsDefined() || section_.IsNull()) return;
  if (!section_.IsMap()) {
    throw ParseError(sources_.SourceOf(name_) + ": section '" + name_ + "' must be a map of key: value");
  }
  for (const auto& item : section_) {
    const std::string key = item.first.Scalar();
    if (!read_.count(key)) {
      throw ParseError(sources_.SourceOf(name_ + "." + key) + ": unknown key '" + name_ + "." + key + "'");
    }
  }
}

void YamlWriter::Int(const char* key, int& value, int, int) { out_ << YAML::Key << key << YAML::Value << value; }

void YamlWriter::Int64(const char* key, int64_t& value, int64_t, int64_t) {
  out_ << YAML::Key << key << YAML::Value << value;
}

void YamlWriter::Double(const char* key, double& value, double, double) {
  out_ << YAML::Key << key << YAML::Value << FormatDouble(value);
}

void YamlWriter::Bool(const char* key, bool& value) {
  out_ << YAML::Key << key << YAML::Value << (value ? "true" : "false");
}

void YamlWriter::String(const char* key, std::string& value, bool) {
  out_ << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

void YamlWriter::Choice(const char* key, std::string& value, std::initializer_list<const char*>) {
  out_ << YAML::Key << key << YAML::Value << value;
}

void YamlWriter::StringList(const char* key, std::vector<std::string>& value) {
  out_ << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& item : value) out_ << YAML::DoubleQuoted << item;
  out_ << YAML::EndSeq;
}

}  // namespace loa::train
