#include "net/torch_evaluator.h"

#include <torch/torch.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>

#include "core/error.h"
#include "core/param_visitor.h"
#include "mcts/batch_server.h"
#include "net/checkpoint.h"
#include "net/cuda_graphs.h"
#include "net/encoder.h"
#include "net/model.h"
#include "net/torch_backend.h"

namespace loa {
namespace {

torch::Dtype CudaDtype(const std::string& precision) {
  if (precision == "bf16") return torch::kBFloat16;
  if (precision == "fp16") return torch::kFloat16;
  if (precision == "fp32") return torch::kFloat32;
  throw Error("precision '" + precision + "' is not bf16, fp16 or fp32 (cuda)");
}

// One caller's positions, encoded by the caller, waiting for a forward
// pass; the caller decodes its rows of the output (so that encoding and
// decoding run on the callers' threads, not on the leader's alone).
struct Request : BatchServer::Request {
  const Position* positions = nullptr;
  const float* encoded = nullptr;           // count x input_size floats
  std::shared_ptr<const NetOutput> output;  // set with done: the batch's heads on the CPU (InferenceHeadsOnCpu)
  int first_row = 0;                        // this request's first row in output
};

}  // namespace

std::string ResolveDevice(const std::string& device) {
  if (device == "cpu") return "cpu";
  if (device == "cuda" || device == "auto") {
    if (torch::cuda::is_available()) return "cuda";
    if (device == "auto") return "cpu";
    throw Error("device cuda: LibTorch sees no GPU (a CPU-only LibTorch, or no driver)");
  }
  throw Error("device '" + device + "' is not cpu, cuda or auto");
}

int CudaPaddedBatch(int n) {
  if (n >= 64) return (n + 63) / 64 * 64;
  int b = 1;
  while (b < n) b *= 2;
  return b;
}

int TorchIntraOpThreads() { return torch::get_num_threads(); }

int ClaimTorchThreads(int threads) {
  static std::mutex mutex;
  static bool claimed = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!claimed) {
    torch::set_num_threads(threads);
    claimed = true;
  }
  return torch::get_num_threads();
}

void InstallTorchBackend() {
  TorchBackend backend;
  backend.read_checkpoint = [](const std::string& path) { return ExportCheckpoint(path); };
  backend.make_evaluator = [](const ExportedNet& net, const NetEvaluatorOptions& options) {
    return std::unique_ptr<Evaluator>(std::make_unique<TorchEvaluator>(net, options));
  };
  backend.resolve_device = ResolveDevice;
  SetTorchBackend(std::move(backend));
}

struct TorchEvaluator::Impl {
  NetEvaluatorOptions options;
  std::string device_name;
  torch::Device device{torch::kCPU};
  torch::Dtype dtype = torch::kFloat32;
  bool channels_last = false;
  LoaNet model{nullptr};
  // One input buffer [rows, planes, 8, 8] on the CPU (pinned for cuda) per
  // forward pass in flight: the server's slots.
  std::vector<torch::Tensor> inputs;
  // CUDA graphs of every padded shape, one set an input buffer; empty when
  // off (options.cuda_graphs, a build without them, or a failed capture).
  std::vector<std::unique_ptr<CudaGraphs>> graphs;
  int graph_shapes = 0;  // the shapes each set holds

  std::unique_ptr<BatchServer> server;             // gathers the callers' requests into forward passes
  InputFeatures features = InputFeatures::kBasic;  // the net's input set
  std::size_t input_size = kInputSize;             // floats per encoded position

  // Runs requests[0..n) as one batch in inputs[slot] and gives each its
  // rows of the output (the server's RunBatch).
  void Run(const std::vector<BatchServer::Request*>& requests, int slot) {
    c10::InferenceMode inference;
    torch::Tensor& input = inputs[std::size_t(slot)];
    int total = 0;
    for (BatchServer::Request* base : requests) {
      Request* r = static_cast<Request*>(base);
      std::memcpy(input.data_ptr<float>() + std::size_t(total) * input_size, r->encoded,
                  std::size_t(r->count) * input_size * sizeof(float));
      r->first_row = total;
      total += r->count;
    }
    const int rows = device.is_cuda() ? std::min<int>(CudaPaddedBatch(total), int(input.size(0))) : total;
    NetOutput heads;
    if (!graphs.empty() && graphs[std::size_t(slot)]->Has(rows)) {
      heads = graphs[std::size_t(slot)]->Run(input.slice(0, 0, rows));
    } else {
      torch::Tensor batch = input.slice(0, 0, rows).to(device, dtype, /*non_blocking=*/true);
      if (channels_last) batch = batch.contiguous(torch::MemoryFormat::ChannelsLast);
      heads = InferenceHeadsOnCpu(model->forward(batch), rows);
    }
    auto output = std::make_shared<const NetOutput>(std::move(heads));
    for (BatchServer::Request* r : requests) static_cast<Request*>(r)->output = output;
  }

  // Returns the row counts a pass on cuda takes (CudaPaddedBatch) up to max_batch.
  std::vector<int> PaddedShapes() const {
    std::vector<int> shapes;
    for (int rows = 1; rows <= CudaPaddedBatch(options.max_batch); rows = CudaPaddedBatch(rows + 1))
      shapes.push_back(rows);
    return shapes;
  }

  // Runs one forward pass at each padded batch shape up to max_batch, so
  // that cuDNN times its kernels for every shape now rather than in the
  // middle of a run (a shape's first pass takes far longer than the next).
  void WarmUp() {
    c10::InferenceMode inference;
    for (int rows : PaddedShapes()) {
      torch::Tensor batch = inputs[0].slice(0, 0, rows).to(device, dtype);
      if (channels_last) batch = batch.contiguous(torch::MemoryFormat::ChannelsLast);
      model->forward(batch).value.to(torch::kCPU);
    }
  }

  // Captures the forward pass at every padded shape up to max_batch for
  // each input buffer (after WarmUp: cuDNN has chosen its kernels); on a
  // failure says so on stderr, once, and runs eagerly.
  void CaptureGraphs(int planes) {
#ifdef LOAZ_CUDA_GRAPHS
    const std::vector<int> shapes = PaddedShapes();
    try {
      for (std::size_t i = 0; i < inputs.size(); ++i)
        graphs.push_back(MakeCudaGraphs(model, shapes, planes, dtype, channels_last));
      graph_shapes = int(shapes.size());
    } catch (const Error& e) {
      graphs.clear();
      std::fprintf(stderr, "loaz: %s; the evaluator runs without cuda graphs\n", e.what());
    }
#else
    (void)planes;
#endif
  }

  // Decodes request's rows of its batch's output into out.
  static void Decode(const Request& request, EvalOutput* out) {
    const NetOutput& o = *request.output;
    const float* p = o.policy.data_ptr<float>();
    const float* v = o.value.data_ptr<float>();
    const float* m = o.moves_left.data_ptr<float>();
    for (int i = 0; i < request.count; ++i) {
      const std::size_t row = std::size_t(request.first_row + i);
      DecodeOutput(request.positions[i], p + row * kPolicySize, v + row * 3, m[row], &out[i]);
    }
  }
};

TorchEvaluator::TorchEvaluator(const ExportedNet& net, const NetEvaluatorOptions& options)
    : impl_(std::make_unique<Impl>()), board_size_(net.board_size()) {
  Impl& s = *impl_;
  CheckParamRanges(options, "net evaluator");
  s.options = options;
  s.device_name = ResolveDevice(options.device);
  ClaimTorchThreads(options.inference_threads);
  const bool cuda = s.device_name == "cuda";
  if (cuda) {
    s.device = torch::Device(torch::kCUDA, 0);
    s.dtype = CudaDtype(options.CudaPrecision());
    // cuDNN times its algorithms once for each shape and keeps the fastest;
    // CudaPaddedBatch keeps the shapes few.
    at::globalContext().setBenchmarkCuDNN(true);
  }
  s.channels_last = options.channels_last.value_or(cuda);
  s.model = LoaNet(net.config);
  LoadExportInto(net, s.model);
  s.model->eval();
  s.model->to(s.device, s.dtype);
  if (s.channels_last) {
    torch::NoGradGuard no_grad;
    for (torch::Tensor& p : s.model->parameters())
      if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  s.features = net.config.features();
  s.input_size = std::size_t(net.config.input_planes()) * kNumSquares;
  const int in_flight = options.batches_in_flight > 0 ? options.batches_in_flight
                        : cuda                        ? options.inference_threads
                                                      : 1;
  const int rows = cuda ? CudaPaddedBatch(options.max_batch) : options.max_batch;
  for (int i = 0; i < in_flight; ++i) {
    torch::Tensor input = torch::zeros({rows, net.config.input_planes(), 8, 8}, torch::kFloat32);
    s.inputs.push_back(cuda ? input.pin_memory() : input);
  }
  s.server = std::make_unique<BatchServer>(
      in_flight, options.max_batch, options.batch_wait_us,
      [&s](const std::vector<BatchServer::Request*>& batch, int slot) { s.Run(batch, slot); });
  if (cuda) {
    s.WarmUp();
    if (s.options.cuda_graphs.value_or(true)) s.CaptureGraphs(net.config.input_planes());
  }
}

TorchEvaluator::~TorchEvaluator() = default;

void TorchEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  // The caller's encoding, a call long (a pass of LibTorch costs far more).
  std::vector<float> encoded;
  for (int first = 0; first < count; first += impl_->options.max_batch) {
    Request request;
    request.positions = positions + first;
    request.count = std::min(impl_->options.max_batch, count - first);
    encoded.resize(std::size_t(request.count) * impl_->input_size);
    EncodePositions(request.positions, request.count, encoded.data(), impl_->features);
    request.encoded = encoded.data();
    impl_->server->Submit(request);
    Impl::Decode(request, out + first);
    request.output.reset();
  }
}

bool CudaGraphsBuilt() {
#ifdef LOAZ_CUDA_GRAPHS
  return true;
#else
  return false;
#endif
}

int TorchEvaluator::graph_shapes() const { return impl_->graphs.empty() ? 0 : impl_->graph_shapes; }

const std::string& TorchEvaluator::device() const { return impl_->device_name; }

void TorchEvaluator::Counters(long* forward_passes, long* positions) const {
  impl_->server->Counters(forward_passes, positions);
}

}  // namespace loa
