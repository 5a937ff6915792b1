#include "net/net_evaluator.h"

#include "core/error.h"
#include "core/param_visitor.h"
#include "mcts/cached_evaluator.h"
#include "net/cpu_net.h"
#include "net/export.h"
#include "net/symmetric_evaluator.h"
#include "net/torch_backend.h"

namespace loa {

void NetEvaluatorOptions::Visit(ParamVisitor& v, bool with_device) {
  if (with_device)
    v.Choice("device", device, {"cpu", "cuda", "auto"}, "where the net runs (auto: cuda when LibTorch sees a GPU)");
  v.Choice("backend", backend, {"auto", "cpu", "torch", "eigen"},
           "cpu: the project's forward pass (oneDNN trunk, no LibTorch); torch: LibTorch's; auto: cpu on the "
           "cpu, torch on cuda; eigen: the old name of cpu");
  v.Int("inference_threads", inference_threads, 1, 1024, "intra-op threads of the forward pass");
  v.Int("max_batch", max_batch, 1, 65536, "the largest LibTorch forward pass");
  int64_t entries = int64_t(cache_entries);
  v.Int64("cache_entries", entries, 0, int64_t{1} << 32, "NN cache entries (0: off)");
  cache_entries = std::size_t(entries);
  v.Int("batch_wait_us", batch_wait_us, 0, 1000000, "LibTorch: microseconds to wait for a fuller batch");
  v.Int("symmetries", symmetries, 1, 8, "average the net over this many board symmetries");
  v.Choice("precision", precision, {"auto", "fp32", "int8", "bf16", "fp16"},
           "the forward pass's arithmetic: cpu fp32 or int8, cuda fp32, bf16 or fp16 (auto: int8 on a cpu with "
           "AVX2, bf16 on cuda)");
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
  const TorchBackend* torch = GetTorchBackend();
  std::string device = "cpu";
  if (torch)
    device = torch->resolve_device(options.device);
  else if (options.device == "cuda")
    throw Error(NeedsTorchMessage("device cuda"));
  const bool cpu_backend = options.backend == "cpu" || options.backend == "eigen";
  if (cpu_backend && device != "cpu")
    throw Error("backend " + options.backend + " runs on the cpu, not on device " + options.device);
  if (device == "cpu" && (options.precision == "bf16" || options.precision == "fp16"))
    throw Error("precision " + options.precision + " runs on cuda; the cpu takes fp32, int8 or auto");
  if (device == "cuda") options.CudaPrecision();  // int8 is the cpu's: an error before the net is read
  ExportedNet net = ReadNetFile(file);
  std::unique_ptr<Evaluator> evaluator;
  if (cpu_backend || (options.backend == "auto" && device == "cpu"))
    evaluator = std::make_unique<CpuEvaluator>(net, options.inference_threads, ResolvePrecision(options.precision));
  else if (torch)
    evaluator = torch->make_evaluator(net, options);
  else
    throw Error(NeedsTorchMessage("backend torch"));
  if (options.symmetries != 1)
    evaluator = std::make_unique<SymmetricEvaluator>(std::move(evaluator), options.symmetries);
  if (options.cache_entries < 2) return evaluator;
  return std::make_unique<CachedEvaluator>(std::move(evaluator), options.cache_entries);
}

}  // namespace loa
