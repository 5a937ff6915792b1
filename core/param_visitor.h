#pragma once
// One declaration per parameter, as lc0 declares its options: a struct lists
// its fields once, in a Visit(ParamVisitor&) function beside it, each with
// its key, range and a one-line help; the value passed in is the default (or
// the current value). Every reader and writer is a visitor over that list:
// the YAML config and --set (run/config_yaml.h), player specs
// (play/spec.h), the JSON of checkpoints and exports (net/net_config.cpp),
// range checks and the `loaz config` listing (here). Adding a parameter is
// one line in a Visit function.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loa {

class ParamVisitor;

// A list of records of the same fields, as a config writes
// `[{hours: 1, full: 320, cheap: 64}, ...]`: its length, and a declaration
// of record i's fields on a visitor. RecordsOf adapts a vector of structs
// that have a Visit function.
class RecordList {
 public:
  virtual ~RecordList() = default;
  virtual std::size_t size() const = 0;
  virtual void resize(std::size_t n) = 0;
  virtual void VisitItem(ParamVisitor& v, std::size_t i) = 0;
};

template <class T>
class RecordsOf : public RecordList {
 public:
  explicit RecordsOf(std::vector<T>& items) : items_(items) {}
  std::size_t size() const override { return items_.size(); }
  void resize(std::size_t n) override { items_.resize(n); }
  void VisitItem(ParamVisitor& v, std::size_t i) override { items_[i].Visit(v); }

 private:
  std::vector<T>& items_;
};

// Receives the fields of one struct, each with its range and help.
class ParamVisitor {
 public:
  virtual ~ParamVisitor() = default;
  virtual void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) = 0;
  virtual void Double(const char* key, double& value, double min, double max, const char* help) = 0;
  virtual void Bool(const char* key, bool& value, const char* help) = 0;
  // A free string; `allow_empty` says whether "" is accepted.
  virtual void String(const char* key, std::string& value, bool allow_empty, const char* help) = 0;
  // A string that must be one of `choices`.
  virtual void Choice(const char* key, std::string& value, const std::vector<std::string>& choices,
                      const char* help) = 0;
  virtual void StringList(const char* key, std::vector<std::string>& value, const char* help) = 0;
  // A list of records (a config file's; the default throws Error: a
  // visitor of player specs or net files never meets one).
  virtual void Records(const char* key, RecordList& list, const char* help);

  // An int field, through Int64.
  void Int(const char* key, int& value, int min, int max, const char* help);
  // A float field, through Double; written as the shortest decimal that
  // reads back as the same float (0.2, not 0.20000000298023224).
  void Float(const char* key, float& value, double min, double max, const char* help);
};

// Returns the shortest decimal text that reads back as exactly d, with a
// decimal point or exponent so that it reads back as a number, not an int.
std::string FormatDouble(double d);

// Reads fields from text values ("3", "0.25", "true", "draw"), with type
// and range checks: the one parser behind YAML configs, --set, player specs,
// rules strings and the JSON of checkpoints. A subclass says where a key's
// text comes from and how a failure is reported.
class TextParamReader : public ParamVisitor {
 public:
  void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) override;
  void Double(const char* key, double& value, double min, double max, const char* help) override;
  void Bool(const char* key, bool& value, const char* help) override;
  void String(const char* key, std::string& value, bool allow_empty, const char* help) override;
  void Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char* help) override;
  void StringList(const char* key, std::vector<std::string>& value, const char* help) override;
  // Fails when the key is given: a list of records is read from YAML alone.
  void Records(const char* key, RecordList& list, const char* help) override;

 protected:
  // Returns the text of key, or nothing when it is absent (the field keeps
  // its value). Records that the key was declared.
  virtual std::optional<std::string> Text(const char* key) = 0;
  // Returns the items of a list-valued key, or nothing when absent.
  virtual std::optional<std::vector<std::string>> List(const char* key);
  // Throws for key: ParseError when `type_error` (text of the wrong type),
  // else Error (a value out of range).
  [[noreturn]] virtual void Fail(const std::string& key, const std::string& why, bool type_error) const = 0;
};

// A "key=value" setting split at its first '=' (the value may hold more).
struct KeyValue {
  std::string key, value;
};

// Returns text split at its first '=', or nullopt when it has none or its
// key is empty.
std::optional<KeyValue> SplitKeyValue(const std::string& text);

// Returns the map of the "key=value" settings (for MapParamReader); throws
// ParseError, after context, naming a setting that is not key=value or a
// key given twice.
std::map<std::string, std::string> KeyValueMap(const std::vector<std::string>& settings, const std::string& context);

// Reads fields from a map of key -> text (a player spec's pairs, a rules
// string). Keys no field declares are kept for UnknownKeys().
class MapParamReader : public TextParamReader {
 public:
  // `context` starts every message, e.g. "player 'mcts:playouts=x'".
  MapParamReader(const std::map<std::string, std::string>& values, std::string context);

  // Returns the keys of the map that no visited field declared, sorted.
  std::vector<std::string> UnknownKeys() const;
  // Returns the keys that were declared, in the order visited.
  const std::vector<std::string>& declared() const { return declared_; }

 protected:
  std::optional<std::string> Text(const char* key) override;
  [[noreturn]] void Fail(const std::string& key, const std::string& why, bool type_error) const override;

 private:
  const std::map<std::string, std::string>& values_;
  std::string context_;
  std::vector<std::string> declared_;
};

// Writes fields as "key=value" pairs joined by `separator`.
class TextParamWriter : public ParamVisitor {
 public:
  explicit TextParamWriter(std::string separator = " ") : separator_(std::move(separator)) {}
  const std::string& text() const { return text_; }

  void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) override;
  void Double(const char* key, double& value, double min, double max, const char* help) override;
  void Bool(const char* key, bool& value, const char* help) override;
  void String(const char* key, std::string& value, bool allow_empty, const char* help) override;
  void Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char* help) override;
  void StringList(const char* key, std::vector<std::string>& value, const char* help) override;
  // Writes key=[{a=1 b=2}, {a=3 b=4}].
  void Records(const char* key, RecordList& list, const char* help) override;

 private:
  void Add(const char* key, const std::string& value);
  std::string separator_, text_;
};

// Throws Error "CONTEXT: KEY = VALUE is out of range [MIN, MAX]" for the
// first field outside its range (or a choice not among its choices).
class RangeChecker : public ParamVisitor {
 public:
  explicit RangeChecker(std::string context) : context_(std::move(context)) {}
  void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) override;
  void Double(const char* key, double& value, double min, double max, const char* help) override;
  void Bool(const char*, bool&, const char*) override {}
  void String(const char* key, std::string& value, bool allow_empty, const char* help) override;
  void Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char* help) override;
  void StringList(const char*, std::vector<std::string>&, const char*) override {}
  // Checks each record's fields, naming them key[i].field.
  void Records(const char* key, RecordList& list, const char* help) override;

 private:
  std::string context_;
};

// One field as `loaz config` lists it.
struct ParamInfo {
  std::string key, type, range, default_value, help;
};

// Collects every field's key, type, range, current value and help.
class ParamLister : public ParamVisitor {
 public:
  const std::vector<ParamInfo>& params() const { return params_; }

  void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) override;
  void Double(const char* key, double& value, double min, double max, const char* help) override;
  void Bool(const char* key, bool& value, const char* help) override;
  void String(const char* key, std::string& value, bool allow_empty, const char* help) override;
  void Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char* help) override;
  void StringList(const char* key, std::vector<std::string>& value, const char* help) override;
  // One row: type "list", range the records' fields, the value as
  // [{hours: 1, full: 320, cheap: 64}].
  void Records(const char* key, RecordList& list, const char* help) override;

 private:
  std::vector<ParamInfo> params_;
};

// Throws Error naming the first field of `params` out of range (see
// RangeChecker). T has a Visit(ParamVisitor&) member.
template <typename T>
void CheckParamRanges(const T& params, const std::string& context) {
  T copy = params;
  RangeChecker checker(context);
  copy.Visit(checker);
}

}  // namespace loa
