#pragma once
// The exported net: the architecture, encoder version, rules and the
// model's tensors in one safetensors file, readable with no training state
// (the engine) and by Python (scripts/read_export.py). No LibTorch here.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "net/net_config.h"
#include "net/safetensors.h"

namespace loa {

// "__metadata__" of an export: format = kExportFormat, architecture =
// NetConfig::ToJson(), encoder_version, rules (Rules::ToString()), step.
inline constexpr char kExportFormat[] = "loazero-net";

// A net in memory as the export holds it: the model's state dict (weights
// and batch-norm running statistics, float32, PyTorch's names and layouts).
struct ExportedNet {
  NetConfig config;
  std::string rules;  // the rule options the net was trained for
  int64_t step = 0;   // training steps behind these weights
  std::map<std::string, HostTensor> tensors;
  std::string source;  // where it came from, for messages

  // Returns the tensor `name`; throws Error naming the source if it is absent.
  const HostTensor& Get(const std::string& name) const;
  // Returns the board size of its rules (8 for a net from before sizes).
  int board_size() const;
};

// Returns the name and shape of every tensor a model of this config holds,
// in the order the model registers them: what an export must contain.
std::vector<std::pair<std::string, std::vector<int64_t>>> TensorLayout(const NetConfig& config);

// Throws Error naming net.source when a tensor of TensorLayout is missing or
// of another shape, the file holds a tensor the layout lacks, or a tensor
// holds a value that is not finite (a NaN or an infinity: such a net's
// outputs are not numbers, and it must not play).
void CheckTensors(const ExportedNet& net);

// Writes net to path atomically; throws IoError.
void WriteExport(const std::string& path, const ExportedNet& net);

// Reads an export; throws IoError for a file that cannot be read, and Error
// for one that is truncated, not ours, of another encoder version, or whose
// tensors do not match its architecture.
ExportedNet ReadExport(const std::string& path);
// The same from the file's bytes; `name` (its path) goes into the messages.
ExportedNet ParseExport(const std::string& bytes, const std::string& name);

// Returns the element-wise mean of nets (stochastic weight averaging, as
// KataGo exports an average of recent weights): every tensor, batch-norm
// statistics included, averaged; the step is the newest net's. Throws Error
// naming the sources when nets is empty or two differ in architecture or
// rules.
ExportedNet AverageNets(const std::vector<ExportedNet>& nets);

// Returns whether the file at path starts like a safetensors file (as
// opposed to a checkpoint, a zip archive); throws IoError if unreadable.
bool LooksLikeSafeTensors(const std::string& path);

}  // namespace loa
