#include "play/spec.h"

#include "core/error.h"

namespace loa {

PlayerSpec PlayerSpec::Parse(const std::string& text) {
  PlayerSpec spec;
  spec.text_ = text;
  const size_t colon = text.find(':');
  spec.kind_ = text.substr(0, colon);
  if (spec.kind_.empty()) spec.Fail("missing player kind before ':'");
  if (colon == std::string::npos) return spec;
  // The value of `cmd` may hold commas and '=': it runs to the end.
  size_t pos = colon + 1;
  while (pos < text.size()) {
    const size_t eq = text.find('=', pos);
    if (eq == std::string::npos) spec.Fail("'" + text.substr(pos) + "' is not key=value");
    const std::string key = text.substr(pos, eq - pos);
    size_t end = key == "cmd" ? text.size() : text.find(',', eq);
    if (end == std::string::npos) end = text.size();
    if (key.empty()) spec.Fail("empty key before '='");
    if (spec.options_.count(key)) spec.Fail("key '" + key + "' given twice");
    spec.options_[key] = text.substr(eq + 1, end - eq - 1);
    pos = end + 1;
  }
  return spec;
}

void PlayerSpec::Fail(const std::string& why) const { throw ParseError("player '" + text_ + "': " + why); }

void PlayerSpec::CheckKeys(std::initializer_list<const char*> known) const {
  for (const auto& [key, value] : options_) {
    bool found = false;
    std::string list;
    for (const char* k : known) {
      found |= key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!found)
      Fail("unknown option '" + key + "' for " + kind_ +
           (list.empty() ? " (it takes none)" : " (known: " + list + ")"));
  }
}

std::string PlayerSpec::GetString(const std::string& key, const std::string& fallback) const {
  auto it = options_.find(key);
  return it == options_.end() ? fallback : it->second;
}

int64_t PlayerSpec::GetInt(const std::string& key, int64_t fallback, int64_t min, int64_t max) const {
  auto it = options_.find(key);
  if (it == options_.end()) return fallback;
  size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size()) Fail(key + "=" + it->second + " is not a whole number");
  if (value < min || value > max)
    Fail(key + "=" + it->second + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

double PlayerSpec::GetDouble(const std::string& key, double fallback, double min, double max) const {
  auto it = options_.find(key);
  if (it == options_.end()) return fallback;
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size()) Fail(key + "=" + it->second + " is not a number");
  if (!(value >= min && value <= max))
    Fail(key + "=" + it->second + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

}  // namespace loa
