#include "net/torch_backend.h"

#include <optional>

#include "core/error.h"

namespace loa {
namespace {

std::optional<TorchBackend>& Installed() {
  static std::optional<TorchBackend> backend;
  return backend;
}

}  // namespace

void SetTorchBackend(TorchBackend backend) { Installed() = std::move(backend); }

const TorchBackend* GetTorchBackend() { return Installed() ? &*Installed() : nullptr; }

std::string TorchBackendMissing() { return GetTorchBackend() ? "" : NeedsTorchMessage("backend torch"); }

std::unique_ptr<Evaluator> MakeTorchNetEvaluator(const ExportedNet& net, const NetEvaluatorOptions& options) {
  const TorchBackend* torch = GetTorchBackend();
  if (!torch) throw Error(TorchBackendMissing());
  return torch->make_evaluator(net, options);
}

std::string NeedsTorchMessage(const std::string& what) {
  return what + " needs LibTorch, which this program does not load: use `loaz-torch` (the same commands, with " +
         "LibTorch) or play an export (`loaz export`) on the cpu";
}

}  // namespace loa
