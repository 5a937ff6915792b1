#include "net/net_config.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace loa {
namespace {

void CheckRange(const char* name, int value, int lo, int hi) {
  if (value < lo || value > hi)
    throw Error("net config: " + std::string(name) + " = " + std::to_string(value) + " is outside [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace

void NetConfig::Validate() const {
  CheckRange("input_planes", input_planes, kNumInputPlanes, kNumInputPlanes);  // what the encoder writes
  CheckRange("blocks", blocks, 1, 64);
  CheckRange("channels", channels, 8, 512);
  CheckRange("global_pooling_every", global_pooling_every, 0, 64);
  CheckRange("policy_channels", policy_channels, 1, 512);
  CheckRange("value_channels", value_channels, 1, 512);
  CheckRange("value_hidden", value_hidden, 1, 4096);
  CheckRange("moves_left_channels", moves_left_channels, 1, 512);
  CheckRange("moves_left_hidden", moves_left_hidden, 1, 4096);
}

double NetConfig::FlopsPerPosition() const {
  const double squares = 64, c = channels;
  double flops = squares * input_planes * c * 9;  // stem
  flops += blocks * 2 * squares * c * c * 9;      // residual convolutions
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
  j["input_planes"] = input_planes;
  j["blocks"] = blocks;
  j["channels"] = channels;
  j["global_pooling_every"] = global_pooling_every;
  j["policy_channels"] = policy_channels;
  j["value_channels"] = value_channels;
  j["value_hidden"] = value_hidden;
  j["moves_left"] = moves_left;
  j["moves_left_channels"] = moves_left_channels;
  j["moves_left_hidden"] = moves_left_hidden;
  return j.dump();
}

std::string NetConfig::ShortName() const { return std::to_string(blocks) + "x" + std::to_string(channels); }

NetConfig NetConfig::FromJson(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ParseError("net config: not JSON: " + std::string(e.what()));
  }
  if (!j.is_object()) throw ParseError("net config: not a JSON object: " + text);
  NetConfig config;
  struct IntField {
    const char* name;
    int* value;
  };
  const IntField ints[] = {{"input_planes", &config.input_planes},
                           {"blocks", &config.blocks},
                           {"channels", &config.channels},
                           {"global_pooling_every", &config.global_pooling_every},
                           {"policy_channels", &config.policy_channels},
                           {"value_channels", &config.value_channels},
                           {"value_hidden", &config.value_hidden},
                           {"moves_left_channels", &config.moves_left_channels},
                           {"moves_left_hidden", &config.moves_left_hidden}};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = it.key() == "moves_left";
    for (const IntField& f : ints) known = known || it.key() == f.name;
    if (!known) throw ParseError("net config: unknown key '" + it.key() + "'");
  }
  for (const IntField& f : ints) {
    if (!j.contains(f.name)) throw ParseError("net config: missing key '" + std::string(f.name) + "'");
    if (!j[f.name].is_number_integer()) throw ParseError("net config: '" + std::string(f.name) + "' is not an integer");
    *f.value = j[f.name].get<int>();
  }
  if (!j.contains("moves_left") || !j["moves_left"].is_boolean())
    throw ParseError("net config: 'moves_left' is missing or not true/false");
  config.moves_left = j["moves_left"].get<bool>();
  config.Validate();
  return config;
}

}  // namespace loa
