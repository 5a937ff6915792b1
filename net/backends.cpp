// The table of evaluator backends, one row a backend.

#include "net/backends.h"

#include <algorithm>

#include "core/error.h"
#include "net/cpu_evaluator.h"
#include "net/torch_backend.h"

namespace loa {
namespace {

// A backend: its name in options, a line for `loaz config`, where it runs
// and in what precisions, its priority for `auto`, why this binary lacks
// it (null: never), its factory (options.device resolved to one of its
// devices) and its old spellings. A new backend is one row here.
struct BackendRow {
  const char* name;
  const char* usage;
  std::vector<BackendDevice> devices;
  int priority;
  std::string (*missing)();
  std::unique_ptr<Evaluator> (*make)(const ExportedNet& net, const NetEvaluatorOptions& options);
  std::vector<std::string> old_names;
};

const BackendRow kBackends[] = {
    {"cpu",
     "the project's forward pass: oneDNN trunk, no LibTorch (net/cpu_net.h); auto's int8 needs AVX2",
     {{"cpu", {"int8", "fp32"}}},
     2,
     nullptr,
     MakeCpuNetEvaluator,
     {"eigen"}},
    {"torch",
     "LibTorch's forward pass, batches gathered across threads (net/torch_evaluator.h); loaz-torch only",
     {{"cuda", {"bf16", "fp16", "fp32"}}, {"cpu", {"fp32"}}},
     1,
     TorchBackendMissing,
     MakeTorchNetEvaluator,
     {}},
};

std::string Joined(const std::vector<std::string>& items, const char* last) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : i + 1 == items.size() ? last : ", ") + items[i];
  return text;
}

const BackendDevice* DeviceOf(const BackendRow& row, const std::string& device) {
  for (const BackendDevice& d : row.devices)
    if (d.device == device) return &d;
  return nullptr;
}

std::string Missing(const BackendRow& row) { return row.missing ? row.missing() : std::string(); }

const BackendRow& FindRow(const std::string& name) {
  for (const BackendRow& row : kBackends) {
    if (name == row.name) return row;
    for (const std::string& old : row.old_names)
      if (name == old) return row;
  }
  throw Error("backend '" + name + "' is not one of " + Joined(BackendChoices(), " or "));
}

// auto: the available row of highest priority that runs on device.
const BackendRow& PickRow(const std::string& device) {
  const BackendRow* best = nullptr;
  for (const BackendRow& row : kBackends)
    if (DeviceOf(row, device) && Missing(row).empty() && (!best || row.priority > best->priority)) best = &row;
  if (!best) throw Error("backend auto: no backend of this program runs on device " + device);
  return *best;
}

// Throws unless the row takes precision on device ("auto" it always takes).
void CheckPrecision(const BackendRow& row, const BackendDevice& device, const std::string& precision) {
  const std::vector<std::string>& own = device.precisions;
  if (precision == "auto" || std::find(own.begin(), own.end(), precision) != own.end()) return;
  std::vector<std::string> where;  // the devices where some backend takes it
  for (const BackendRow& other : kBackends)
    for (const BackendDevice& d : other.devices)
      if (std::find(d.precisions.begin(), d.precisions.end(), precision) != d.precisions.end() &&
          std::find(where.begin(), where.end(), d.device) == where.end())
        where.push_back(d.device);
  std::vector<std::string> takes = own;
  takes.push_back("auto");
  throw Error("precision " + precision + " runs on " + Joined(where, " or ") + "; backend " + row.name + " on " +
              device.device + " takes " + Joined(takes, " or "));
}

}  // namespace

std::vector<BackendInfo> DescribeBackends() {
  std::vector<BackendInfo> rows;
  for (const BackendRow& row : kBackends)
    rows.push_back({row.name, row.usage, row.devices, row.priority, row.old_names, Missing(row)});
  return rows;
}

std::vector<std::string> BackendChoices() {
  std::vector<std::string> choices{"auto"};
  for (const BackendRow& row : kBackends) choices.push_back(row.name);
  for (const BackendRow& row : kBackends) choices.insert(choices.end(), row.old_names.begin(), row.old_names.end());
  return choices;
}

std::vector<std::string> PrecisionChoices() {
  std::vector<std::string> choices{"auto"};
  for (const BackendRow& row : kBackends)
    for (const BackendDevice& d : row.devices)
      for (const std::string& p : d.precisions)
        if (std::find(choices.begin(), choices.end(), p) == choices.end()) choices.push_back(p);
  return choices;
}

std::string ResolveNetDevice(const std::string& device) {
  if (const TorchBackend* torch = GetTorchBackend()) return torch->resolve_device(device);
  if (device == "cuda") throw Error(NeedsTorchMessage("device cuda"));
  return "cpu";
}

ChosenBackend ChooseBackend(const NetEvaluatorOptions& options) {
  const std::string device = ResolveNetDevice(options.device);
  const BackendRow& row = options.backend == "auto" ? PickRow(device) : FindRow(options.backend);
  const BackendDevice* on = DeviceOf(row, device);
  if (!on) {
    std::vector<std::string> devices;
    for (const BackendDevice& d : row.devices) devices.push_back(d.device);
    throw Error("backend " + options.backend + " runs on " + Joined(devices, " or ") + ", not on device " +
                options.device);
  }
  const std::string missing = Missing(row);
  if (!missing.empty()) throw Error(missing);
  CheckPrecision(row, *on, options.precision);
  if (device == "cuda") options.CudaPrecision();  // the old cuda_precision key, checked alike
  return {row.name, device};
}

std::unique_ptr<Evaluator> MakeBackendEvaluator(const ChosenBackend& chosen, const ExportedNet& net,
                                                const NetEvaluatorOptions& options) {
  NetEvaluatorOptions resolved = options;
  resolved.device = chosen.device;
  return FindRow(chosen.name).make(net, resolved);
}

ExportedNet ReadNetFile(const std::string& path) {
  if (LooksLikeSafeTensors(path)) return ReadExport(path);
  const TorchBackend* torch = GetTorchBackend();
  if (!torch) throw Error(NeedsTorchMessage(path + ": a checkpoint (not an export)"));
  return torch->read_checkpoint(path);
}

}  // namespace loa
