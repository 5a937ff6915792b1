#pragma once
// The evaluator backends as one table, beside play/'s table of player kinds:
// a row a backend, with the devices it runs on, the precisions it takes on
// each, its priority and its factory. `backend=auto` picks the row of
// highest priority that runs on the device; `loaz config`, the errors and
// `loaz bench net` list the rows. A new backend is one row in
// net/backends.cpp and its own file (lc0's REGISTER_NETWORK with its
// BackendAttributes, as a table). Sees no LibTorch.

#include <memory>
#include <string>
#include <vector>

#include "mcts/evaluator.h"
#include "net/export.h"
#include "net/net_options.h"

namespace loa {

// Where a backend runs and the precisions it takes there, the one `auto`
// means first ("auto" resolves it further where the processor decides:
// int8 needs AVX2).
struct BackendDevice {
  std::string device;                   // "cpu" or "cuda"
  std::vector<std::string> precisions;  // {"int8", "fp32"}
};

// A backend as `loaz config` lists it.
struct BackendInfo {
  std::string name;                    // "cpu"
  std::string usage;                   // one line: what it is
  std::vector<BackendDevice> devices;  // where it runs
  int priority = 0;                    // auto picks the highest that runs on the device
  std::vector<std::string> old_names;  // spellings still read ("eigen")
  std::string missing;                 // why this binary cannot run it ("" where it can)
};

// Every backend, in the table's order.
std::vector<BackendInfo> DescribeBackends();

// The values `backend` takes: "auto", every row's name, the old names.
std::vector<std::string> BackendChoices();

// The values `precision` takes: "auto" and every precision of any row.
std::vector<std::string> PrecisionChoices();

// Resolves options.device ("cpu", "cuda", "auto": cuda when LibTorch sees
// a GPU) to "cpu" or "cuda". Throws Error (device cuda in a binary without
// LibTorch, or a LibTorch that sees no GPU).
std::string ResolveNetDevice(const std::string& device);

// The backend options choose, on the device they resolve to.
struct ChosenBackend {
  std::string name;    // the row's ("cpu" for "eigen", the row auto picked)
  std::string device;  // "cpu" or "cuda"
};

// Resolves options' backend on options' device: throws Error naming the
// backend, device or precision when the table has no row for them (an
// unknown backend, one that does not run on the device or that this
// binary lacks, a precision the backend does not take there). Reads no net.
ChosenBackend ChooseBackend(const NetEvaluatorOptions& options);

// Returns an evaluator of net on the chosen backend (ChooseBackend first).
std::unique_ptr<Evaluator> MakeBackendEvaluator(const ChosenBackend& chosen, const ExportedNet& net,
                                                const NetEvaluatorOptions& options);

// Reads a net file of either kind, an export or a checkpoint (through the
// LibTorch backend, net/torch_backend.h). Throws as ReadExport does, and
// Error for a checkpoint when no backend is installed.
ExportedNet ReadNetFile(const std::string& path);

}  // namespace loa
