#include "net/net_evaluator.h"

#include "core/error.h"
#include "mcts/cached_evaluator.h"
#include "net/eigen_net.h"
#include "net/export.h"
#include "net/symmetric_evaluator.h"
#include "net/torch_evaluator.h"

namespace loa {

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
  if (options.backend == "eigen" || (options.backend == "auto" && device == "cpu"))
    evaluator = std::make_unique<EigenEvaluator>(net, options.threads);
  else
    evaluator = std::make_unique<TorchEvaluator>(net, options);
  if (options.symmetries != 1)
    evaluator = std::make_unique<SymmetricEvaluator>(std::move(evaluator), options.symmetries);
  if (options.cache_entries < 2) return evaluator;
  return std::make_unique<CachedEvaluator>(std::move(evaluator), options.cache_entries);
}

}  // namespace loa
