#pragma once
// The seam between net/ and its LibTorch half (library loaz_net_torch, in
// the loaz-torch binary only; docs/DESIGN.md, Build): reading checkpoints
// (.pt) and running nets on LibTorch (cuda, or backend=torch). A binary
// without LibTorch has no backend installed, and these uses of a net fail
// with an error that says so; exports on the cpu (backend cpu) need none of it.
// This header sees no LibTorch.

#include <functional>
#include <memory>
#include <string>

#include "mcts/evaluator.h"
#include "net/export.h"

namespace loa {

struct NetEvaluatorOptions;

struct TorchBackend {
  // Reads a checkpoint's net as an export; throws Error.
  std::function<ExportedNet(const std::string& path)> read_checkpoint;
  // Returns an evaluator running net on LibTorch; throws Error.
  std::function<std::unique_ptr<Evaluator>(const ExportedNet& net, const NetEvaluatorOptions& options)> make_evaluator;
  // Returns "cpu" or "cuda" for "cpu", "cuda" or "auto"; throws Error.
  std::function<std::string(const std::string& device)> resolve_device;
};

// Installs the backend (net/torch_evaluator.h's InstallTorchBackend does);
// call it before any other thread runs.
void SetTorchBackend(TorchBackend backend);

// Returns the installed backend, or nullptr in a binary without LibTorch.
const TorchBackend* GetTorchBackend();

// The torch backend's row (net/backends.cpp): why this binary cannot run
// it ("" in loaz-torch), and its factory, through the installed backend.
std::string TorchBackendMissing();
std::unique_ptr<Evaluator> MakeTorchNetEvaluator(const ExportedNet& net, const NetEvaluatorOptions& options);

// Returns the message for `what` (e.g. "device cuda"), which needs LibTorch,
// in a binary without it.
std::string NeedsTorchMessage(const std::string& what);

}  // namespace loa
