#include "net/net_evaluator.h"

#include "core/error.h"
#include "mcts/cached_evaluator.h"
#include "net/eigen_net.h"
#include "net/export.h"
#include "net/torch_evaluator.h"

namespace loa {
namespace {

// On cpu under backend auto: small calls (the engine's search threads) on
// Eigen, large ones (self-play's batches) on LibTorch. Thread-safe as both
// parts are.
class SplitEvaluator : public Evaluator {
 public:
  SplitEvaluator(std::unique_ptr<Evaluator> small, std::unique_ptr<Evaluator> large, int largest_small)
      : small_(std::move(small)), large_(std::move(large)), largest_small_(largest_small) {}

  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    (count <= largest_small_ ? small_ : large_)->Evaluate(positions, count, out);
  }

 private:
  std::unique_ptr<Evaluator> small_, large_;
  int largest_small_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeNetEvaluator(const std::string& file, const NetEvaluatorOptions& options) {
  if (options.backend != "auto" && options.backend != "eigen" && options.backend != "torch")
    throw Error("backend '" + options.backend + "' is not auto, eigen or torch");
  if (options.threads < 1 || options.threads > 1024)
    throw Error("threads = " + std::to_string(options.threads) + " is outside [1, 1024]");
  const std::string device = ResolveDevice(options.device);
  if (options.backend == "eigen" && device != "cpu")
    throw Error("backend eigen runs on the cpu, not on device " + options.device);
  ExportedNet net = ReadNetFile(file);
  std::unique_ptr<Evaluator> evaluator;
  if (options.backend == "eigen") {
    evaluator = std::make_unique<EigenEvaluator>(net, options.threads);
  } else if (options.backend == "torch" || device != "cpu") {
    evaluator = std::make_unique<TorchEvaluator>(net, options);
  } else {
    evaluator = std::make_unique<SplitEvaluator>(std::make_unique<EigenEvaluator>(net, options.threads),
                                                 std::make_unique<TorchEvaluator>(net, options), kEigenMaxAutoBatch);
  }
  if (options.cache_entries < 2) return evaluator;
  return std::make_unique<CachedEvaluator>(std::move(evaluator), options.cache_entries);
}

}  // namespace loa
