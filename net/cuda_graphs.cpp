// Compiled only where LibTorch has CUDA (net/CMakeLists.txt, LOAZ_CUDA_GRAPHS).
#include "net/cuda_graphs.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/version.h>

#include <algorithm>
#include <map>

#include "core/error.h"

namespace loa {
namespace {

// A pass captured at one batch shape: its input and output tensors stay
// where the graph reads and writes them.
struct Captured {
  at::cuda::CUDAGraph graph;
  torch::Tensor input;  // float32 [rows, planes, 8, 8] on cuda
  NetOutput output;     // on cuda, in the net's dtype
};

class CudaGraphsImpl : public CudaGraphs {
 public:
  CudaGraphsImpl(LoaNet model, const std::vector<int>& rows, int planes, torch::Dtype dtype, bool channels_last)
      : model_(std::move(model)),
        dtype_(dtype),
        channels_last_(channels_last),
        stream_(c10::cuda::getStreamFromPool()) {
    c10::InferenceMode inference;
    c10::cuda::device_synchronize();  // the weights and the eager warm-up are done
    c10::cuda::CUDAStreamGuard guard(stream_);
    for (int n : rows) Capture(n, planes);
    c10::cuda::device_synchronize();
  }

  bool Has(int rows) const override { return graphs_.count(rows) > 0; }

  NetOutput Run(const torch::Tensor& input) override {
    c10::InferenceMode inference;
    Captured& c = *graphs_.at(int(input.size(0)));
    c10::cuda::CUDAStreamGuard guard(stream_);
    c.input.copy_(input, /*non_blocking=*/true);
    c.graph.replay();
    return InferenceHeadsOnCpu(c.output, input.size(0));  // copies on stream_, after the replay
  }

 private:
  // The pass as the eager evaluator runs it, from a float32 input on cuda.
  NetOutput Forward(const torch::Tensor& input) {
    torch::Tensor x = input.to(dtype_);
    if (channels_last_) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    return model_->forward(x);
  }

  // Captures the pass at n rows on stream_, replays it on a random input and
  // checks it against the eager pass.
  void Capture(int n, int planes) {
    auto c = std::make_unique<Captured>();
    const auto on_cuda = torch::TensorOptions().device(torch::kCUDA, 0).dtype(torch::kFloat32);
    c->input = torch::zeros({n, planes, 8, 8}, on_cuda);
    Forward(c->input);  // a pass on this stream before its capture, as LibTorch asks
    stream_.synchronize();
    // The graphs of a set share one memory pool: they replay one at a time
    // and each replay's outputs are copied out before the next, so one
    // graph's scratch may hold another's outputs (a pool each would keep
    // every shape's activations at once).
    const auto pool = graphs_.empty() ? decltype(c->graph.pool()){} : graphs_.begin()->second->graph.pool();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
    // Thread-local: another thread's CUDA calls (the trainer's) do not break the capture.
    c->graph.capture_begin(pool, cudaStreamCaptureModeThreadLocal);
#else
    c->graph.capture_begin(pool);
#endif
    c->output = Forward(c->input);
    c->graph.capture_end();

    const torch::Tensor probe = (torch::rand({n, planes, 8, 8}, on_cuda) < 0.3).to(torch::kFloat32);
    c->input.copy_(probe);
    c->graph.replay();
    const NetOutput replayed = InferenceHeadsOnCpu(c->output, n), eager = InferenceHeadsOnCpu(Forward(probe), n);
    for (auto [a, b, name] :
         {std::tuple{replayed.policy, eager.policy, "policy"}, std::tuple{replayed.value, eager.value, "value"},
          std::tuple{replayed.moves_left, eager.moves_left, "moves left"}}) {
      const double diff = (a - b).abs().max().item<double>(), scale = b.abs().max().item<double>();
      if (!(diff <= 1e-3 + 1e-2 * scale))
        throw Error("cuda graph of " + std::to_string(n) + " rows: its " + name + " differs from the eager pass by " +
                    std::to_string(diff));
    }
    graphs_[n] = std::move(c);
  }

  LoaNet model_;
  torch::Dtype dtype_;
  bool channels_last_;
  c10::cuda::CUDAStream stream_;
  std::map<int, std::unique_ptr<Captured>> graphs_;
};

}  // namespace

std::unique_ptr<CudaGraphs> MakeCudaGraphs(LoaNet model, const std::vector<int>& rows, int planes, torch::Dtype dtype,
                                           bool channels_last) {
  try {
    return std::make_unique<CudaGraphsImpl>(std::move(model), rows, planes, dtype, channels_last);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string("cuda graphs: ") + e.what());
  }
}

}  // namespace loa
