#pragma once
// The one declaration of every config field (lc0's options: name, range,
// default): a section lists its fields to a FieldVisitor once, and the same
// list reads YAML, writes the resolved config and applies --set overrides.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

namespace loa::train {

// Receives the fields of one config section, each with its range; the value
// passed in is the current one (the default before reading).
class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  virtual void Int(const char* key, int& value, int min, int max) = 0;
  virtual void Int64(const char* key, int64_t& value, int64_t min, int64_t max) = 0;
  virtual void Double(const char* key, double& value, double min, double max) = 0;
  virtual void Bool(const char* key, bool& value) = 0;
  // A free string; `allow_empty` says whether "" is accepted.
  virtual void String(const char* key, std::string& value, bool allow_empty) = 0;
  // A string that must be one of `choices`.
  virtual void Choice(const char* key, std::string& value, std::initializer_list<const char*> choices) = 0;
  virtual void StringList(const char* key, std::vector<std::string>& value) = 0;

  // Float fields of other modules' structs, read through Double; written
  // as the shortest decimal that reads back as the same float (0.2, not
  // 0.20000000298023224).
  void Float(const char* key, float& value, double min, double max) {
    char text[32];
    for (int precision = 6; precision <= 9; ++precision) {
      std::snprintf(text, sizeof text, "%.*g", precision, double(value));
      if (std::strtof(text, nullptr) == value) break;
    }
    double d = std::strtod(text, nullptr);
    Double(key, d, min, max);
    value = float(d);
  }
};

}  // namespace loa::train
