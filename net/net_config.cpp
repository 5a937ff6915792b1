#include "net/net_config.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/param_visitor.h"

namespace loa {
namespace {

// Writes fields into a JSON object.
class JsonWriter : public ParamVisitor {
 public:
  explicit JsonWriter(nlohmann::ordered_json& j) : j_(j) {}
  void Int64(const char* key, int64_t& value, int64_t, int64_t, const char*) override { j_[key] = value; }
  void Double(const char* key, double& value, double, double, const char*) override { j_[key] = value; }
  void Bool(const char* key, bool& value, const char*) override { j_[key] = value; }
  void String(const char* key, std::string& value, bool, const char*) override { j_[key] = value; }
  void Choice(const char* key, std::string& value, const std::vector<std::string>&, const char*) override {
    j_[key] = value;
  }
  void StringList(const char* key, std::vector<std::string>& value, const char*) override { j_[key] = value; }

 private:
  nlohmann::ordered_json& j_;
};

// Reads fields from a JSON object in which every declared key must be.
class JsonReader : public TextParamReader {
 public:
  explicit JsonReader(const nlohmann::json& j) : j_(j) {}

 protected:
  std::optional<std::string> Text(const char* key) override {
    if (!j_.contains(key)) {
      // Older files: the basic planes, no such head.
      if (std::string(key) == "input_features") return std::nullopt;
      for (const TrainingHeadRow& head : kTrainingHeads)
        if (std::string(key) == head.channels_key) return std::nullopt;
      Fail(key, "missing", true);
    }
    const nlohmann::json& value = j_[key];
    if (value.is_string()) return value.get<std::string>();
    if (!value.is_primitive() || value.is_null()) Fail(key, "not a number, string or true/false", true);
    return value.dump();
  }
  [[noreturn]] void Fail(const std::string& key, const std::string& why, bool) const override {
    throw ParseError("net config: '" + key + "': " + why);
  }

 private:
  const nlohmann::json& j_;
};

}  // namespace

void NetConfig::Visit(ParamVisitor& v) {
  v.Choice("input_features", input_features, InputFeaturesNames(),
           "input planes: basic (pieces, line counts), connection (and groups, spread, move targets) or threat "
           "(and each side's wins in one move, groups after a move)");
  v.Int("blocks", blocks, 1, 64, "residual blocks in the trunk");
  v.Int("channels", channels, 8, 512, "trunk width");
  v.Int("global_pooling_every", global_pooling_every, 0, 64, "every k-th block adds a global pooling bias (0: none)");
  v.Int("policy_channels", policy_channels, 1, 512, "width of the policy head's 1x1 convolution");
  v.Int("value_channels", value_channels, 1, 512, "width of the value head's 1x1 convolution");
  v.Int("value_hidden", value_hidden, 1, 4096, "hidden units of the value head");
  v.Bool("moves_left", moves_left, "whether the net has a moves-left head");
  v.Int("moves_left_channels", moves_left_channels, 1, 512, "width of the moves-left head's 1x1 convolution");
  v.Int("moves_left_hidden", moves_left_hidden, 1, 4096, "hidden units of the moves-left head");
  for (int h = 0; h < kNumTrainingHeads; ++h)
    v.Int(kTrainingHeads[h].channels_key, head_channels[h], 0, 512, kTrainingHeads[h].channels_help);
}

void NetConfig::Validate() const { CheckParamRanges(*this, "net config"); }

double NetConfig::FlopsPerPosition() const {
  const double squares = 64, c = channels;
  double flops = squares * input_planes() * c * 9;  // stem
  flops += blocks * 2 * squares * c * c * 9;        // residual convolutions
  for (int b = 0; b < blocks; ++b)
    if (HasGlobalPooling(b)) flops += 2 * c * c;                   // pooling bias
  flops += squares * (c * policy_channels + policy_channels * 8);  // policy head
  flops += squares * c * value_channels + squares * value_channels * value_hidden + value_hidden * 3;
  if (moves_left)
    flops += squares * c * moves_left_channels + squares * moves_left_channels * moves_left_hidden + moves_left_hidden;
  return 2 * flops;
}

std::string NetConfig::ToJson() const {
  nlohmann::ordered_json j;
  j["input_planes"] = input_planes();
  NetConfig copy = *this;
  JsonWriter writer(j);
  copy.Visit(writer);
  // A head the net lacks is no key: files without it read the same in
  // builds that predate the head.
  for (int h = 0; h < kNumTrainingHeads; ++h)
    if (head_channels[h] == 0) j.erase(kTrainingHeads[h].channels_key);
  return j.dump();
}

std::string NetConfig::ShortName() const { return std::to_string(blocks) + "x" + std::to_string(channels); }

NetConfig NetConfig::FromJson(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ParseError("net config: not JSON: " + Excerpt(e.what()));
  }
  if (!j.is_object()) throw ParseError("net config: not a JSON object: " + Excerpt(text));
  NetConfig config;
  if (!j.contains("input_planes") || !j["input_planes"].is_number_integer())
    throw ParseError("net config: 'input_planes' is missing or not an integer");
  JsonReader reader(j);
  config.Visit(reader);
  if (j["input_planes"].get<int>() != config.input_planes())
    throw Error("net config: input_planes = " + j["input_planes"].dump() + ", but the " + config.input_features +
                " input set has " + std::to_string(config.input_planes()));
  ParamLister declared;
  config.Visit(declared);
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = it.key() == "input_planes";
    for (const ParamInfo& p : declared.params()) known = known || it.key() == p.key;
    if (!known) throw ParseError("net config: unknown key '" + Excerpt(it.key()) + "'");
  }
  config.Validate();
  return config;
}

bool CanGrowInto(const NetConfig& from, const NetConfig& to) {
  NetConfig same = to;
  same.blocks = from.blocks;
  same.channels = from.channels;
  return same == from && to.blocks >= from.blocks && to.channels >= from.channels;
}

}  // namespace loa
