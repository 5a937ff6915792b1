#pragma once
// The exported net on the CPU, no LibTorch at play time: batch norm folded
// into the convolutions, every convolution and the heads' first linear
// layers on oneDNN in fp32 or int8 (net/onednn_trunk.h), the global
// pooling and the heads' last linear layers on Eigen. The engine's and
// self-play's evaluator.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mcts/evaluator.h"
#include "net/export.h"

namespace loa {

class Position;
struct ChannelRanges;
struct QuantizedIo;

// Positions per chunk: the trunk runs layer by layer over a chunk, one
// oneDNN convolution for all of its positions (per position, a batch of 64
// runs 1.3x faster than a batch of 1 on AVX2, `build/bench/conv_bench`);
// the heads' linear layers run as one matrix product per chunk. A chunk's
// activations are 64 x 64 x C floats (512 KB at 32 channels).
constexpr int kChunkPositions = 64;

// oneDNN runs its convolutions on the calling thread's OpenMP team: while
// one lives, that team is this thread alone, so that an evaluation keeps to
// its thread and no team is left spinning beside the searches. The team
// size is restored when it ends, by an exception too.
class OneThreadTeam {
 public:
  OneThreadTeam();
  ~OneThreadTeam();
  OneThreadTeam(const OneThreadTeam&) = delete;
  OneThreadTeam& operator=(const OneThreadTeam&) = delete;

 private:
  int team_;
};

// The arithmetic of the layers on oneDNN (nearly all of a forward pass); in
// int8 the activations between them are 8 bits too. The global pooling and
// the heads' last layers stay float32 (docs/INFERENCE.md).
enum class Precision { kFp32, kInt8 };

// Returns "fp32" or "int8".
const char* PrecisionName(Precision p);

// Resolves a precision option, "fp32", "int8" or "auto", for this
// processor: auto is int8 where oneDNN runs AVX2 or wider (as
// ONEDNN_MAX_CPU_ISA may cap it), else fp32; int8 below AVX2 is fp32 with
// one line on stderr saying so.
Precision ResolvePrecision(const std::string& option);

// One line on the cpu's kernels here: oneDNN's version and instruction
// set, what auto runs, and the int8 scheme, e.g. "oneDNN 2.6.3 (avx2);
// auto: int8, 8-bit activations, 7-bit weights (16-bit sums,
// saturation-free)" (`loaz bench net`, `loaz config`).
std::string CpuKernelsSummary();

// The forward pass of an exported net. Immutable after construction.
class CpuNet {
 public:
  // Folds the batch norms of net (an export whose layout has been checked)
  // into its convolutions; keeps no reference to net. In int8, the input of
  // each trunk convolution is quantized with the range it takes on the
  // calibration positions (net/calibration.h), measured here in float32.
  explicit CpuNet(const ExportedNet& net, Precision precision = Precision::kFp32);
  ~CpuNet();

  const NetConfig& config() const { return config_; }
  Precision precision() const { return precision_; }

  // Scratch memory of one forward pass. Not thread-safe: one per thread.
  class Workspace;
  struct WorkspaceDeleter {
    void operator()(Workspace* workspace) const;
  };
  using WorkspacePtr = std::unique_ptr<Workspace, WorkspaceDeleter>;
  // Returns a workspace for this net; the caller owns it.
  WorkspacePtr NewWorkspace() const;

  // Runs count >= 1 encoded positions (count * input_planes() * 64 floats,
  // NCHW, EncodePositions with the config's input set) and
  // writes per position 512 policy logits, 3 WDL logits and the moves-left
  // output (0 without that head). Thread-safe with a workspace per thread.
  void Forward(const float* input, int count, float* policy, float* value, float* moves_left,
               Workspace& workspace) const;

 private:
  struct Layers;
  // Runs layer `layer` (0: the stem; 1 + 2b, 2 + 2b: block b's; then the
  // heads') on n positions' NHWC activations.
  void RunLayer(int layer, int n, const void* in, const void* residual, void* out, Workspace& ws) const;
  // Throws Error naming source when the outputs on the starting position
  // are not all finite (weights that overflow): such a net must not play.
  void CheckFiniteOutputs(const std::string& source) const;
  // Returns the ranges of each layer's input over positions, in fp32.
  std::vector<ChannelRanges> InputRanges(const std::vector<Position>& positions) const;
  // Returns how each layer reads and writes in int8, from its input's range.
  std::vector<QuantizedIo> Int8Io(const std::vector<ChannelRanges>& ranges) const;

  NetConfig config_;
  Precision precision_;
  std::unique_ptr<Layers> layers_;
};

}  // namespace loa
