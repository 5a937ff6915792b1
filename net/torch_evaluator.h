#pragma once
// The net on LibTorch for inference, on cpu or cuda, gathering the requests
// of several threads into one forward pass. This header sees no LibTorch.

#include <memory>
#include <string>

#include "mcts/evaluator.h"
#include "net/export.h"
#include "net/net_evaluator.h"

namespace loa {

// Returns "cpu" or "cuda" for a device option ("cpu", "cuda", "auto": cuda
// when LibTorch sees a GPU). Throws Error for another name, or for "cuda"
// when no GPU is visible. Thread-safe.
std::string ResolveDevice(const std::string& device);

// Installs this LibTorch half of net/ as the torch backend
// (net/torch_backend.h): checkpoints become readable as nets, and
// MakeNetEvaluator runs nets on cuda or backend=torch. The loaz-torch binary
// and the tests that need LibTorch call it first thing.
void InstallTorchBackend();

// The one owner of LibTorch's process-wide intra-op thread count: the first
// call sets it to `threads` (the trainer's train.threads in a training
// process, else the first LibTorch evaluator's inference_threads) and later
// calls leave it. Returns the count in force. Thread-safe.
int ClaimTorchThreads(int threads);

// Returns the rows a forward pass of n positions runs on cuda: n rounded up
// to a power of two below 64 and to a multiple of 64 from there, so that
// the GPU sees few shapes (cuDNN times its kernels once a shape) at a cost of
// at most 63 padding rows (zeros or an earlier batch's, never read back).
int CudaPaddedBatch(int n);

// Returns LibTorch's process-wide intra-op thread count (for reports).
int TorchIntraOpThreads();

// No-grad inference of an exported net on LibTorch (bf16 or fp16 on cuda,
// as options.CudaPrecision() says). Evaluate is thread-safe: a call queues
// its positions in the evaluator's BatchServer (mcts/batch_server.h); one
// caller at a time becomes the leader, waits up to options.batch_wait_us
// for the other recently active threads to queue theirs (not at all when
// it is the only one), and runs them as one batch of at most
// options.max_batch positions, with up to batches_in_flight batches at once. Claims LibTorch's process-wide
// intra-op thread count with options.inference_threads (ClaimTorchThreads).
class TorchEvaluator : public Evaluator {
 public:
  // Builds the model from net on the resolved device; throws Error.
  TorchEvaluator(const ExportedNet& net, const NetEvaluatorOptions& options);
  ~TorchEvaluator() override;
  // The board the net was trained on (its export's rules).
  int board_size() const { return board_size_; }
  bool PlaysBoardSize(int size) const override { return size == board_size_; }

  void Evaluate(const Position* positions, int count, EvalOutput* out) override;

  // Returns how many batch shapes run as CUDA graphs (net/cuda_graphs.h):
  // 0 on the cpu, with cuda_graphs off, in a build without them, or when
  // their capture failed (one line on stderr says why).
  int graph_shapes() const;
  // Returns the device the model runs on: "cpu" or "cuda".
  const std::string& device() const;
  // Returns how many forward passes ran and how many positions they held
  // (their ratio is the mean batch). Thread-safe.
  void Counters(long* forward_passes, long* positions) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int board_size_ = kBoardSize;
};

}  // namespace loa
