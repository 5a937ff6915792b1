#include "net/export.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "core/error.h"
#include "core/file_util.h"
#include "core/game.h"

namespace loa {
namespace {

using Layout = std::vector<std::pair<std::string, std::vector<int64_t>>>;

void AddBatchNorm(Layout& layout, const std::string& prefix, int64_t channels) {
  for (const char* field : {"weight", "bias", "running_mean", "running_var"})
    layout.push_back({prefix + "." + field, {channels}});
}

// A 1x1 convolution, its batch norm, then a two-layer perceptron: the value
// and moves-left heads.
void AddDenseHead(Layout& layout, const std::string& prefix, int64_t in, int64_t channels, int64_t hidden,
                  int64_t outputs) {
  layout.push_back({prefix + ".conv.weight", {channels, in, 1, 1}});
  AddBatchNorm(layout, prefix + ".bn", channels);
  layout.push_back({prefix + ".fc1.weight", {hidden, channels * kNumSquares}});
  layout.push_back({prefix + ".fc1.bias", {hidden}});
  layout.push_back({prefix + ".fc2.weight", {outputs, hidden}});
  layout.push_back({prefix + ".fc2.bias", {outputs}});
}

}  // namespace

int ExportedNet::board_size() const { return Rules::FromString(rules).size; }

const HostTensor& ExportedNet::Get(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw Error(source + ": lacks tensor " + name);
  return it->second;
}

Layout TensorLayout(const NetConfig& config) {
  const int64_t c = config.channels;
  Layout layout;
  layout.push_back({"stem.conv.weight", {c, config.input_planes(), 3, 3}});
  AddBatchNorm(layout, "stem.bn", c);
  for (int b = 0; b < config.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    layout.push_back({prefix + ".conv1.weight", {c, c, 3, 3}});
    AddBatchNorm(layout, prefix + ".bn1", c);
    if (config.HasGlobalPooling(b)) {
      layout.push_back({prefix + ".pool.weight", {c, 2 * c}});
      layout.push_back({prefix + ".pool.bias", {c}});
    }
    layout.push_back({prefix + ".conv2.weight", {c, c, 3, 3}});
    AddBatchNorm(layout, prefix + ".bn2", c);
  }
  layout.push_back({"policy.conv.weight", {config.policy_channels, c, 1, 1}});
  AddBatchNorm(layout, "policy.bn", config.policy_channels);
  layout.push_back({"policy.out.weight", {kNumDirections, config.policy_channels, 1, 1}});
  layout.push_back({"policy.out.bias", {kNumDirections}});
  AddDenseHead(layout, "value", c, config.value_channels, config.value_hidden, 3);
  if (config.moves_left) AddDenseHead(layout, "moves_left", c, config.moves_left_channels, config.moves_left_hidden, 1);
  return layout;
}

void CheckTensors(const ExportedNet& net) {
  Layout layout = TensorLayout(net.config);
  for (const auto& [name, shape] : layout) {
    const HostTensor& tensor = net.Get(name);
    if (tensor.shape != shape) {
      HostTensor expected{shape, {}};
      throw Error(net.source + ": tensor " + name + " has shape " + tensor.ShapeString() + " but architecture " +
                  net.config.ShortName() + " needs " + expected.ShapeString());
    }
    const auto bad = std::find_if(tensor.data.begin(), tensor.data.end(), [](float x) { return !std::isfinite(x); });
    if (bad != tensor.data.end())
      throw Error(net.source + ": tensor " + name + " holds " + std::to_string(*bad) + " at element " +
                  std::to_string(bad - tensor.data.begin()) + "; a net must be finite to play");
  }
  if (net.tensors.size() != layout.size()) {
    for (const auto& [name, tensor] : net.tensors) {
      bool known = false;
      for (const auto& entry : layout) known = known || entry.first == name;
      if (!known) throw Error(net.source + ": tensor " + name + " is not part of architecture " + net.config.ToJson());
    }
  }
}

void WriteExport(const std::string& path, const ExportedNet& net) {
  SafeTensors st;
  st.tensors = net.tensors;
  st.metadata["format"] = kExportFormat;
  st.metadata["architecture"] = net.config.ToJson();
  st.metadata["encoder_version"] = std::to_string(kEncoderVersion);
  st.metadata["rules"] = net.rules;
  st.metadata["step"] = std::to_string(net.step);
  WriteSafeTensors(path, st);
}

ExportedNet ReadExport(const std::string& path) { return ParseExport(ReadFile(path), path); }

ExportedNet ParseExport(const std::string& bytes, const std::string& path) {
  SafeTensors st = ParseSafeTensors(bytes, path);
  auto meta = [&](const char* key) {
    auto it = st.metadata.find(key);
    if (it == st.metadata.end()) throw Error(path + ": not a LOAZero export (no '" + key + "' in its metadata)");
    return it->second;
  };
  if (meta("format") != kExportFormat) throw Error(path + ": format '" + meta("format") + "' is not " + kExportFormat);
  if (meta("encoder_version") != std::to_string(kEncoderVersion))
    throw Error(path + ": encoder version " + meta("encoder_version") + ", but this build encodes version " +
                std::to_string(kEncoderVersion));
  ExportedNet net;
  net.source = path;
  try {
    net.config = NetConfig::FromJson(meta("architecture"));
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  net.rules = meta("rules");
  try {
    Rules::FromString(net.rules);  // readable now, not at its first use
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  try {
    net.step = std::stoll(meta("step"));
  } catch (const std::exception&) {
    throw Error(path + ": step '" + meta("step") + "' is not a number");
  }
  net.tensors = std::move(st.tensors);
  CheckTensors(net);
  return net;
}

ExportedNet AverageNets(const std::vector<ExportedNet>& nets) {
  if (nets.empty()) throw Error("no nets to average");
  const ExportedNet& first = nets.front();
  CheckTensors(first);
  ExportedNet mean = first;
  for (std::size_t i = 1; i < nets.size(); ++i) {
    const ExportedNet& net = nets[i];
    if (net.config != first.config)
      throw Error(net.source + ": architecture " + net.config.ToJson() + " differs from " + first.source + "'s " +
                  first.config.ToJson() + "; only nets of one architecture can be averaged");
    if (!(Rules::FromString(net.rules) == Rules::FromString(first.rules)))
      throw Error(net.source + ": rules '" + net.rules + "' differ from " + first.source + "'s '" + first.rules + "'");
    CheckTensors(net);
    for (auto& [name, tensor] : mean.tensors) {
      const std::vector<float>& add = net.Get(name).data;
      for (std::size_t k = 0; k < tensor.data.size(); ++k) tensor.data[k] += add[k];
    }
    mean.step = std::max(mean.step, net.step);
  }
  const float scale = 1.0f / float(nets.size());
  for (auto& [name, tensor] : mean.tensors)
    for (float& value : tensor.data) value *= scale;
  mean.source = "the average of " + std::to_string(nets.size()) + " nets";
  return mean;
}

bool LooksLikeSafeTensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path + ": cannot open: " + std::strerror(errno));
  char head[9] = {};
  in.read(head, 9);
  return in.gcount() == 9 && head[8] == '{';
}

}  // namespace loa
