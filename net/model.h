#pragma once
// The policy/value ResNet in LibTorch: what the trainer trains and the
// TorchEvaluator runs. Tensor names match TensorLayout (net/export.h).
//
//   planes [N, 7, 8, 8]
//     -> stem: conv3x3 -> BN -> ReLU                       [N, C, 8, 8]
//     -> blocks x ResidualBlock (every k-th with global pooling)
//     -> policy head -> 512 logits   (square * 8 + direction)
//     -> value head  -> 3 logits     (win, draw, loss for the side to move)
//     -> moves-left head -> 1        (remaining plies / kMovesLeftScale)
//     -> training-only heads (net/training_heads.h: ownership, reply, soft
//        policy), each a ConvHead that exports leave out

#include <array>

#include <torch/torch.h>

#include "net/export.h"
#include "net/net_config.h"

namespace loa {

// The raw heads of a forward pass: logits, not probabilities, so that the
// trainer applies its own losses (masking illegal moves is the loss's and
// the evaluator's job).
struct NetOutput {
  torch::Tensor policy;      // [N, 512]
  torch::Tensor value;       // [N, 3]: win, draw, loss logits
  torch::Tensor moves_left;  // [N]; undefined when the config has no such head
  // The training-only heads' logits by TrainingHead, in their row's shape
  // (HeadShape); undefined for a head the config lacks.
  std::array<torch::Tensor, kNumTrainingHeads> heads;
};

// The heads inference reads (policy, value, moves left) of `out`, a pass of
// `rows` positions, on the CPU in float32, contiguous; moves_left is zeros
// without that head. Copies on the current CUDA stream.
NetOutput InferenceHeadsOnCpu(const NetOutput& out, int64_t rows);

// conv (no bias) -> batch norm, the unit every layer is built of.
//
//   x -> conv kxk (in -> out) -> BN -> y
class ConvBnImpl : public torch::nn::Module {
 public:
  ConvBnImpl(int in, int out, int kernel);
  // Returns BN(conv(x)), no activation.
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv_{nullptr};
  torch::nn::BatchNorm2d bn_{nullptr};
};
TORCH_MODULE(ConvBn);

// A residual block; with pooling, KataGo's global pooling bias between its
// two convolutions: channel means and maxima over the board, through a
// linear layer, added to every square.
//
//   x ──> conv3x3-BN-ReLU ──> y ──(+ pool)──> conv3x3-BN ──> (+) ──> ReLU
//   │                         │       ^                       ^
//   │                         └ mean,max -> linear(2C -> C)   │
//   └─────────────────────────────────────────────────────────┘
class ResidualBlockImpl : public torch::nn::Module {
 public:
  ResidualBlockImpl(int channels, bool pooling);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Linear pool_{nullptr};
};
TORCH_MODULE(ResidualBlock);

// A convolutional head: per square, `outputs` logits. The policy head, as
// in Leela Chess Zero (direction d of the piece on square s is output plane
// d at s, so that the 512 logits come out in policy index order s * 8 + d
// after a transpose; a training head of HeadShape::kPolicy is another), and
// each training head of HeadShape::kPerSquare.
//
//   trunk -> conv1x1 (C -> H) -> BN -> ReLU -> conv1x1 (H -> outputs, bias)
//         -> [N, outputs, 64]
class ConvHeadImpl : public torch::nn::Module {
 public:
  ConvHeadImpl(int channels, int hidden, int outputs);
  torch::Tensor forward(const torch::Tensor& trunk);

 private:
  torch::nn::Conv2d conv_{nullptr}, out_{nullptr};
  torch::nn::BatchNorm2d bn_{nullptr};
};
TORCH_MODULE(ConvHead);

// The value head (3 outputs) and the moves-left head (1), AlphaZero style.
//
//   trunk -> conv1x1 (C -> V) -> BN -> ReLU -> flatten [N, V*64]
//         -> linear (V*64 -> H) -> ReLU -> linear (H -> outputs)
class DenseHeadImpl : public torch::nn::Module {
 public:
  DenseHeadImpl(int channels, int head_channels, int hidden, int outputs);
  torch::Tensor forward(const torch::Tensor& trunk);

 private:
  torch::nn::Conv2d conv_{nullptr};
  torch::nn::BatchNorm2d bn_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(DenseHead);

// The whole net. A torch::nn::Module: parameters() for the optimizer,
// train()/eval(), to(device). Not thread-safe; the evaluators serialise.
class LoaNetImpl : public torch::nn::Module {
 public:
  // Builds a freshly initialised net (PyTorch's default initialisation;
  // seed it with torch::manual_seed); throws Error if config is invalid.
  explicit LoaNetImpl(const NetConfig& config);

  // Returns the logits of each head for input [N, planes, 8, 8] (float on
  // the model's device and dtype).
  NetOutput forward(const torch::Tensor& input);

  const NetConfig& config() const { return config_; }

 private:
  NetConfig config_;
  ConvBn stem_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
  ConvHead policy_{nullptr};
  std::vector<ConvHead> heads_ = std::vector<ConvHead>(kNumTrainingHeads, ConvHead(nullptr));  // by TrainingHead
  DenseHead value_{nullptr}, moves_left_{nullptr};
};
TORCH_MODULE(LoaNet);

// Returns the model's state as an export: every parameter and batch-norm
// statistic but the training-only heads' (what play never runs; the config
// is NetConfig::Exported()), copied to CPU float32. Not thread-safe with
// training.
ExportedNet ToExport(LoaNet& model, const std::string& rules, int64_t step);

// Copies every parameter and buffer of `from` into `to` (same
// architecture, any devices). Not thread-safe with training on either.
void CopyWeights(LoaNet& from, LoaNet& to);

// Copies `from` into `to`, a net of the same config but for as many or
// more blocks and channels (CanGrowInto), so that `to` computes
// what `from` did, in training and in eval mode, and learns from there (a
// net grown during a run, as KataGo's and Leela's runs grew theirs):
// - deeper: the stem, the heads and the first from.blocks blocks get
//   from's tensors; each new block (appended after them, before the heads)
//   keeps its fresh initialisation except its second batch norm's scale
//   and shift, which are zeroed, so that it adds nothing to its input;
// - wider: each tensor of `from` fills the leading slice of its wider
//   self (the pooling layer's two halves, means and maxima, each its own),
//   the new channels keep their fresh initialisation and compute features
//   of their own, and every weight from a new channel into an old one (a
//   convolution's or the pooling layer's new inputs of an old output, the
//   heads' new inputs) is zeroed: no old output sees a new channel until
//   training moves those weights, which their gradients do at once (Net2Net's
//   function-preserving growth, with zero outgoing weights).
// Throws Error when `from` does not grow into `to`. Not thread-safe with
// training on either.
void GrowInto(LoaNet& from, LoaNet& to);

// Moves the weight average towards model: each parameter and floating
// batch-norm statistic becomes keep * average + (1 - keep) * model (an
// exponential moving average, Polyak averaging); the batch counters are
// copied. Same architecture and device. Not thread-safe with training.
void UpdateAverage(LoaNet& average, LoaNet& model, double keep);

// Copies the tensors of net (whose config must equal the model's) into the
// model, on the model's device; throws Error naming net.source otherwise.
void LoadExportInto(const ExportedNet& net, LoaNet& model);

}  // namespace loa
