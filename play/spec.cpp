#include "play/spec.h"

#include <algorithm>

#include "core/error.h"
#include "core/param_visitor.h"

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
    spec.order_.push_back(key);
    pos = end + 1;
  }
  return spec;
}

std::string PlayerSpec::TextWith(const std::set<std::string>& without, const std::string& add) const {
  return Compose(without, add, [](const std::string&, const std::string& value) { return value; });
}

PlayerSpec PlayerSpec::With(const std::set<std::string>& without, const std::string& key,
                            const std::string& value) const {
  PlayerSpec spec;
  spec.kind_ = kind_;
  for (const std::string& k : order_) {
    if (without.count(k) || k == "cmd") continue;
    spec.options_[k] = options_.at(k);
    spec.order_.push_back(k);
  }
  if (!key.empty()) {
    if (spec.options_.count(key)) spec.order_.erase(std::find(spec.order_.begin(), spec.order_.end(), key));
    spec.options_[key] = value;
    spec.order_.push_back(key);
  }
  if (options_.count("cmd") && !without.count("cmd") && key != "cmd") {
    spec.options_["cmd"] = options_.at("cmd");
    spec.order_.push_back("cmd");
  }
  spec.text_ = spec.Compose({}, "", [](const std::string&, const std::string& v) { return v; });
  return spec;
}

std::string PlayerSpec::TextMapped(
    const std::function<std::string(const std::string&, const std::string&)>& map) const {
  return Compose({}, "", map);
}

std::string PlayerSpec::Compose(const std::set<std::string>& without, const std::string& add,
                                const std::function<std::string(const std::string&, const std::string&)>& map) const {
  std::vector<std::string> pairs;
  for (const std::string& key : order_)
    if (!without.count(key) && key != "cmd") pairs.push_back(key + "=" + map(key, options_.at(key)));
  if (!add.empty()) pairs.push_back(add);
  if (options_.count("cmd") && !without.count("cmd")) pairs.push_back("cmd=" + map("cmd", options_.at("cmd")));
  std::string text = kind_;
  for (size_t i = 0; i < pairs.size(); ++i) text += (i == 0 ? ":" : ",") + pairs[i];
  return text;
}

void PlayerSpec::Fail(const std::string& why) const { throw ParseError("player '" + Excerpt(text_) + "': " + why); }

namespace {

// The one parameter reader over a spec's pairs; every failure is a
// ParseError (the spec is text that cannot be read).
class SpecReader : public MapParamReader {
 public:
  using MapParamReader::MapParamReader;

 protected:
  [[noreturn]] void Fail(const std::string& key, const std::string& why, bool) const override {
    try {
      MapParamReader::Fail(key, why, true);
    } catch (const Error& e) {
      throw ParseError(e.what());
    }
  }
};

}  // namespace

void PlayerSpec::Read(const std::function<void(ParamVisitor&)>& visit) const {
  SpecReader reader(options_, "player '" + Excerpt(text_) + "'");
  visit(reader);
  declared_.insert(reader.declared().begin(), reader.declared().end());
}

void PlayerSpec::CheckKeys(std::initializer_list<const char*> known) const {
  std::set<std::string> all = declared_;
  for (const char* k : known) all.insert(k);
  for (const auto& [key, value] : options_) {
    if (all.count(key)) continue;
    std::string list;
    for (const std::string& k : all) list += (list.empty() ? "" : ", ") + k;
    Fail("unknown option '" + Excerpt(key) + "' for " + kind_ +
         (list.empty() ? " (it takes none)" : " (known: " + list + ")"));
  }
}

std::string PlayerSpec::GetString(const std::string& key, const std::string& fallback) const {
  std::string value = fallback;
  Read([&](ParamVisitor& v) { v.String(key.c_str(), value, true, ""); });
  return value;
}

int64_t PlayerSpec::GetInt(const std::string& key, int64_t fallback, int64_t min, int64_t max) const {
  int64_t value = fallback;
  Read([&](ParamVisitor& v) { v.Int64(key.c_str(), value, min, max, ""); });
  return value;
}

}  // namespace loa
