#include "net/net_evaluator.h"

#include "core/error.h"
#include "core/param_visitor.h"
#include "mcts/cached_evaluator.h"
#include "net/backends.h"
#include "net/export.h"
#include "net/symmetric_evaluator.h"

namespace loa {

void NetEvaluatorOptions::Visit(ParamVisitor& v, bool with_device) {
  if (with_device)
    v.Choice("device", device, {"cpu", "cuda", "auto"}, "where the net runs (auto: cuda when LibTorch sees a GPU)");
  v.Choice("backend", backend, BackendChoices(),
           "which forward pass runs the net, a row of the backends' table (`loaz config` lists them); auto: the "
           "available row of highest priority that runs on the device");
  v.Int("inference_threads", inference_threads, 1, 1024, "intra-op threads of the forward pass");
  v.Int("max_batch", max_batch, 1, 65536,
        "the largest forward pass (a batch of the searches that share the evaluator)");
  int64_t entries = int64_t(cache_entries);
  v.Int64("cache_entries", entries, 0, int64_t{1} << 32, "NN cache entries (0: off)");
  cache_entries = std::size_t(entries);
  v.Int("batch_wait_us", batch_wait_us, 0, 1000000, "LibTorch: microseconds to wait for a fuller batch");
  v.Int("symmetries", symmetries, 1, 8, "average the net over this many board symmetries");
  v.Choice("precision", precision, PrecisionChoices(),
           "the forward pass's arithmetic, one of those the backend takes on the device (auto: int8 on a cpu "
           "with AVX2, bf16 on cuda)");
  v.Choice("cuda_precision", cuda_precision, {"auto", "bf16", "fp16", "fp32"},
           "the old key of the precision on cuda (auto: precision's)");
}

std::string NetEvaluatorOptions::CudaPrecision() const {
  if (precision == "int8") throw Error("precision int8 runs on the cpu; cuda takes fp32, bf16, fp16 or auto");
  if (precision != "auto") return precision;
  return cuda_precision == "auto" ? "bf16" : cuda_precision;
}

std::unique_ptr<Evaluator> MakeNetEvaluator(const std::string& file, const NetEvaluatorOptions& options) {
  CheckParamRanges(options, "net evaluator");
  const ChosenBackend backend = ChooseBackend(options);  // a bad option fails before the net is read
  std::unique_ptr<Evaluator> evaluator = MakeBackendEvaluator(backend, ReadNetFile(file), options);
  if (options.symmetries != 1)
    evaluator = std::make_unique<SymmetricEvaluator>(std::move(evaluator), options.symmetries);
  if (options.cache_entries < 2) return evaluator;
  return std::make_unique<CachedEvaluator>(std::move(evaluator), options.cache_entries);
}

}  // namespace loa
