#include "core/param_visitor.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace loa {

std::optional<KeyValue> SplitKeyValue(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return KeyValue{text.substr(0, eq), text.substr(eq + 1)};
}

std::map<std::string, std::string> KeyValueMap(const std::vector<std::string>& settings, const std::string& context) {
  std::map<std::string, std::string> map;
  for (const std::string& setting : settings) {
    const std::optional<KeyValue> pair = SplitKeyValue(setting);
    if (!pair) throw ParseError(context + ": '" + Excerpt(setting) + "' is not key=value");
    if (!map.emplace(pair->key, pair->value).second)
      throw ParseError(context + ": " + Excerpt(pair->key) + " is given twice");
  }
  return map;
}
namespace {

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

// Parses a finite decimal number; returns false when text is not one.
bool ParseNumber(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return *end == '\0' && std::isfinite(out);
}

std::string RangeText(int64_t min, int64_t max) { return "[" + std::to_string(min) + ", " + std::to_string(max) + "]"; }

std::string RangeText(double min, double max) { return "[" + FormatDouble(min) + ", " + FormatDouble(max) + "]"; }

std::string ChoiceText(const std::vector<std::string>& choices) {
  std::string text;
  for (const std::string& choice : choices) text += std::string(text.empty() ? "" : "|") + choice;
  return text;
}

}  // namespace

void ParamVisitor::Int(const char* key, int& value, int min, int max, const char* help) {
  int64_t wide = value;
  Int64(key, wide, min, max, help);
  value = int(wide);
}

void ParamVisitor::Float(const char* key, float& value, double min, double max, const char* help) {
  char text[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, double(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  double d = std::strtod(text, nullptr);
  Double(key, d, min, max, help);
  value = float(d);
}

std::string FormatDouble(double d) {
  char buffer[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, d);
    if (std::strtod(buffer, nullptr) == d) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

// --- TextParamReader --------------------------------------------------------

std::optional<std::vector<std::string>> TextParamReader::List(const char* key) {
  const auto text = Text(key);
  if (!text) return std::nullopt;
  Fail(key, "expected a list", true);
}

void TextParamReader::Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char*) {
  const auto text = Text(key);
  if (!text) return;
  int64_t parsed = 0;
  if (!ParseInteger(*text, parsed)) Fail(key, "expected an integer, got '" + Excerpt(*text) + "'", true);
  if (parsed < min || parsed > max)
    Fail(key, std::to_string(parsed) + " is out of range " + RangeText(min, max), false);
  value = parsed;
}

void TextParamReader::Double(const char* key, double& value, double min, double max, const char*) {
  const auto text = Text(key);
  if (!text) return;
  double parsed = 0;
  if (!ParseNumber(*text, parsed)) Fail(key, "expected a number, got '" + Excerpt(*text) + "'", true);
  if (parsed < min || parsed > max) Fail(key, FormatDouble(parsed) + " is out of range " + RangeText(min, max), false);
  value = parsed;
}

void TextParamReader::Bool(const char* key, bool& value, const char*) {
  const auto text = Text(key);
  if (!text) return;
  if (*text == "true" || *text == "True" || *text == "yes" || *text == "on" || *text == "1") {
    value = true;
  } else if (*text == "false" || *text == "False" || *text == "no" || *text == "off" || *text == "0") {
    value = false;
  } else {
    Fail(key, "expected true or false, got '" + Excerpt(*text) + "'", true);
  }
}

void TextParamReader::String(const char* key, std::string& value, bool allow_empty, const char*) {
  const auto text = Text(key);
  if (!text) return;
  if (text->empty() && !allow_empty) Fail(key, "must not be empty", false);
  value = *text;
}

void TextParamReader::Choice(const char* key, std::string& value, const std::vector<std::string>& choices,
                             const char*) {
  const auto text = Text(key);
  if (!text) return;
  for (const std::string& choice : choices) {
    if (*text == choice) {
      value = choice;
      return;
    }
  }
  Fail(key, "'" + Excerpt(*text) + "' is not one of " + ChoiceText(choices), false);
}

void TextParamReader::StringList(const char* key, std::vector<std::string>& value, const char*) {
  if (auto items = List(key)) value = *items;
}

void TextParamReader::Records(const char* key, RecordList&, const char*) {
  if (Text(key)) Fail(key, "a list of records is set in a config file, not here", true);
}

// --- MapParamReader ---------------------------------------------------------

MapParamReader::MapParamReader(const std::map<std::string, std::string>& values, std::string context)
    : values_(values), context_(std::move(context)) {}

std::optional<std::string> MapParamReader::Text(const char* key) {
  declared_.push_back(key);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

void MapParamReader::Fail(const std::string& key, const std::string& why, bool type_error) const {
  const std::string message = context_ + ": " + key + ": " + why;
  if (type_error) throw ParseError(message);
  throw Error(message);
}

std::vector<std::string> MapParamReader::UnknownKeys() const {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : values_)
    if (std::find(declared_.begin(), declared_.end(), key) == declared_.end()) unknown.push_back(key);
  return unknown;
}

// --- TextParamWriter --------------------------------------------------------

void TextParamWriter::Add(const char* key, const std::string& value) {
  text_ += (text_.empty() ? "" : separator_) + std::string(key) + "=" + value;
}

void TextParamWriter::Int64(const char* key, int64_t& value, int64_t, int64_t, const char*) {
  Add(key, std::to_string(value));
}
void TextParamWriter::Double(const char* key, double& value, double, double, const char*) {
  Add(key, FormatDouble(value));
}
void TextParamWriter::Bool(const char* key, bool& value, const char*) { Add(key, value ? "true" : "false"); }
void TextParamWriter::String(const char* key, std::string& value, bool, const char*) { Add(key, value); }
void TextParamWriter::Choice(const char* key, std::string& value, const std::vector<std::string>&, const char*) {
  Add(key, value);
}
void TextParamWriter::StringList(const char* key, std::vector<std::string>& value, const char*) {
  std::string joined;
  for (const std::string& item : value) joined += (joined.empty() ? "" : ";") + item;
  Add(key, joined);
}

void TextParamWriter::Records(const char* key, RecordList& list, const char*) {
  std::string joined;
  for (std::size_t i = 0; i < list.size(); ++i) {
    TextParamWriter item;
    list.VisitItem(item, i);
    joined += (i ? ", {" : "{") + item.text() + "}";
  }
  Add(key, "[" + joined + "]");
}

// --- RangeChecker -----------------------------------------------------------

void RangeChecker::Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char*) {
  if (value < min || value > max)
    throw Error(context_ + ": " + key + " = " + std::to_string(value) + " is out of range " + RangeText(min, max));
}

void RangeChecker::Double(const char* key, double& value, double min, double max, const char*) {
  if (!(value >= min && value <= max))
    throw Error(context_ + ": " + key + " = " + FormatDouble(value) + " is out of range " + RangeText(min, max));
}

void RangeChecker::String(const char* key, std::string& value, bool allow_empty, const char*) {
  if (value.empty() && !allow_empty) throw Error(context_ + ": " + key + " must not be empty");
}

void RangeChecker::Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char*) {
  for (const std::string& choice : choices)
    if (value == choice) return;
  throw Error(context_ + ": " + key + " = '" + Excerpt(value) + "' is not one of " + ChoiceText(choices));
}

void RangeChecker::Records(const char* key, RecordList& list, const char*) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    RangeChecker item(context_ + ": " + key + "[" + std::to_string(i) + "]");
    list.VisitItem(item, i);
  }
}

// --- ParamLister ------------------------------------------------------------

void ParamLister::Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) {
  params_.push_back({key, "int", RangeText(min, max), std::to_string(value), help});
}
void ParamLister::Double(const char* key, double& value, double min, double max, const char* help) {
  params_.push_back({key, "number", RangeText(min, max), FormatDouble(value), help});
}
void ParamLister::Bool(const char* key, bool& value, const char* help) {
  params_.push_back({key, "bool", "true|false", value ? "true" : "false", help});
}
void ParamLister::String(const char* key, std::string& value, bool allow_empty, const char* help) {
  params_.push_back({key, "string", allow_empty ? "any" : "not empty", "\"" + value + "\"", help});
}
void ParamLister::Choice(const char* key, std::string& value, const std::vector<std::string>& choices,
                         const char* help) {
  params_.push_back({key, "choice", ChoiceText(choices), value, help});
}
void ParamLister::StringList(const char* key, std::vector<std::string>& value, const char* help) {
  std::string joined;
  for (const std::string& item : value) joined += (joined.empty() ? "" : ", ") + item;
  params_.push_back({key, "list", "strings", "[" + joined + "]", help});
}

void ParamLister::Records(const char* key, RecordList& list, const char* help) {
  std::string value, fields;
  for (std::size_t i = 0; i < list.size(); ++i) {
    ParamLister item;
    list.VisitItem(item, i);
    std::string text;
    for (const ParamInfo& p : item.params()) text += (text.empty() ? "" : ", ") + p.key + ": " + p.default_value;
    value += (i ? ", {" : "{") + text + "}";
  }
  // The fields' names, from a record of defaults when the list is empty.
  const std::size_t size = list.size();
  list.resize(size + 1);
  ParamLister prototype;
  list.VisitItem(prototype, size);
  list.resize(size);
  for (const ParamInfo& p : prototype.params()) fields += (fields.empty() ? "" : ", ") + p.key;
  params_.push_back({key, "list", "records {" + fields + "}", "[" + value + "]", help});
}

// --- ParamVisitor -----------------------------------------------------------

void ParamVisitor::Records(const char* key, RecordList&, const char*) {
  throw Error(std::string(key) + ": a list of records is not read or written here");
}

}  // namespace loa
