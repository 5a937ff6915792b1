#pragma once
// CUDA graphs of the LibTorch evaluator's forward pass, one a batch shape:
// a captured pass replays its kernels with one launch instead of one a
// layer, the GPU's fixed cost at small and middle batches. Built where the
// LibTorch has CUDA (LOAZ_CUDA_GRAPHS); elsewhere CudaGraphsBuilt() is
// false and MakeCudaGraphs is not called. LibTorch header: net/ only.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "net/model.h"

namespace loa {

// Whether this binary was built with CUDA graphs (a LibTorch with CUDA).
bool CudaGraphsBuilt();

// One input buffer's graphs: the forward pass of model captured at each of
// the given row counts, on a CUDA stream of their own. Replays run one at a
// time (the evaluator gives each batch in flight its own CudaGraphs).
class CudaGraphs {
 public:
  virtual ~CudaGraphs() = default;
  // Whether a pass of `rows` rows was captured.
  virtual bool Has(int rows) const = 0;
  // Copies input (float32 [rows, planes, 8, 8] on the CPU, pinned) into the
  // graph of its rows, replays it and returns policy, value and moves_left
  // on the CPU in float32 (moves_left zeros without that head).
  virtual NetOutput Run(const torch::Tensor& input) = 0;
};

// Captures model (on cuda, in eval mode, its weights in dtype and, with
// channels_last, in that layout) at each of `rows` for inputs of `planes`
// planes; the graph converts the float32 input to dtype and layout itself.
// Each graph's outputs are checked against the eager pass on a random input
// before it is kept. Throws loa::Error (the graphs are then not used).
std::unique_ptr<CudaGraphs> MakeCudaGraphs(LoaNet model, const std::vector<int>& rows, int planes, torch::Dtype dtype,
                                           bool channels_last);

}  // namespace loa
