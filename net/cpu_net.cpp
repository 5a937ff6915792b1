#include "net/cpu_net.h"

// Parallelism is ours (over chunks of a batch), not Eigen's.
#define EIGEN_DONT_PARALLELIZE
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "core/position.h"
#include "net/calibration.h"
#include "net/encoder.h"
#include "net/net_options.h"
#include "net/onednn_trunk.h"

namespace loa {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;

}  // namespace

OneThreadTeam::OneThreadTeam() : team_(omp_get_max_threads()) { omp_set_num_threads(1); }
OneThreadTeam::~OneThreadTeam() { omp_set_num_threads(team_); }

namespace {

Vector ToVector(const HostTensor& t) { return Eigen::Map<const Vector>(t.data.data(), t.data.size()); }

// The stem's input planes, padded with zero planes to a multiple of this:
// whole vectors of channels for the quantization and the kernels.
constexpr int kStemInputMultiple = 16;

// Returns conv with input channels of zero weights added up to a multiple
// of `multiple`.
TrunkConvWeights PaddedInput(const TrunkConvWeights& conv, int multiple) {
  TrunkConvWeights padded = conv;
  padded.in = (conv.in + multiple - 1) / multiple * multiple;
  const int taps = conv.kernel * conv.kernel;
  padded.weight.assign(std::size_t(conv.out) * padded.in * taps, 0.0f);
  for (int o = 0; o < conv.out; ++o)
    std::copy_n(conv.weight.begin() + std::size_t(o) * conv.in * taps, conv.in * taps,
                padded.weight.begin() + std::size_t(o) * padded.in * taps);
  return padded;
}

// A convolution with its batch norm folded in, as float weights
// ([out][in][k][k]) times a per-output scale, plus a bias.
struct FoldedConv {
  const HostTensor* weight;
  Vector scale, bias;
  int out() const { return int(weight->shape[0]); }
  int in() const { return int(weight->shape[1]); }
  TrunkConvWeights Weights() const {
    return {weight->data,
            std::vector<float>(scale.data(), scale.data() + scale.size()),
            std::vector<float>(bias.data(), bias.data() + bias.size()),
            out(),
            in(),
            int(weight->shape[2])};
  }
};

FoldedConv Fold(const ExportedNet& net, const std::string& conv, const std::string& bn) {
  Vector gamma = ToVector(net.Get(bn + ".weight")), beta = ToVector(net.Get(bn + ".bias"));
  Vector mean = ToVector(net.Get(bn + ".running_mean")), var = ToVector(net.Get(bn + ".running_var"));
  Vector scale = (gamma.array() / (var.array() + float(kBatchNormEpsilon)).sqrt()).matrix();
  Vector bias = beta - (mean.array() * scale.array()).matrix();
  return {&net.Get(conv + ".weight"), scale, bias};
}

// A linear layer: y = weight * x + bias (PyTorch's weight is out x in).
struct Linear {
  Matrix weight;
  Vector bias;
};

Linear LoadLinear(const ExportedNet& net, const std::string& name) {
  const HostTensor& w = net.Get(name + ".weight");
  return {Eigen::Map<const RowMatrix>(w.data.data(), w.shape[0], w.shape[1]), ToVector(net.Get(name + ".bias"))};
}

struct Block {
  bool pooling = false;
  Linear pool;  // c x 2c: channel means, then maxima
};

// A layer that is not a folded convolution (the policy's output, a dense
// head's first linear layer), as one: a scale of 1.
TrunkConvWeights Unfolded(const ExportedNet& net, const std::string& name, int kernel, bool keep_board, bool relu) {
  const HostTensor& w = net.Get(name + ".weight");
  TrunkConvWeights c;
  c.weight = w.data;
  c.bias = net.Get(name + ".bias").data;
  c.out = int(w.shape[0]);
  c.in = int(w.data.size() / w.shape[0]) / (kernel * kernel);
  c.scale.assign(c.out, 1.0f);
  c.kernel = kernel;
  c.keep_board = keep_board;
  c.relu = relu;
  return c;
}

// conv1x1-BN-ReLU, flatten, linear-ReLU, linear: the value and moves-left
// heads. The convolution and the first linear layer run as convolutions
// (layers conv and conv + 1; the linear layer as a kernel of 8 over the
// board, which reads PyTorch's flattening, channel * 64 + square, as it
// lies), the last on Eigen.
struct DenseHead {
  int conv = -1;
  Linear fc2;
};

}  // namespace

struct CpuNet::Layers {
  // The layers on oneDNN, in RunLayer's order: the stem, each block's two
  // convolutions, the policy's 1x1 convolution and its output layer, and
  // each dense head's convolution and first linear layer.
  std::vector<TrunkConvWeights> convs;
  std::unique_ptr<OneDnnTrunk> onednn;
  std::vector<Block> blocks;
  int policy = -1;  // the policy's 1x1 convolution; policy + 1 writes the logits
  DenseHead value, moves_left;
};

const char* PrecisionName(Precision p) { return p == Precision::kInt8 ? "int8" : "fp32"; }

Precision ResolvePrecision(const std::string& option) {
  if (option == "fp32") return Precision::kFp32;
  if (option != "int8" && option != "auto") throw Error("precision: '" + option + "' is not fp32, int8 or auto");
  if (OneDnnHasFastInt8()) return Precision::kInt8;
  // Below AVX2 (a processor without it, or oneDNN capped by
  // ONEDNN_MAX_CPU_ISA) oneDNN's int8 kernels are no faster than fp32.
  if (option == "int8") {
    static std::once_flag said;
    std::call_once(said, [] {
      std::fprintf(stderr, "precision int8: oneDNN runs %s here, below AVX2; the net runs in fp32\n",
                   OneDnnIsa().c_str());
    });
  }
  return Precision::kFp32;
}

std::string CpuKernelsSummary() {
  std::string line = "oneDNN " + OneDnnVersion() + "; auto: ";
  if (!OneDnnHasFastInt8()) return line + "fp32 (int8 needs AVX2)";
  return line + "int8, " + Levels().Describe();
}

// A chunk's activations, NHWC (net/onednn_trunk.h): a row a square of a
// position, a column a channel.
class CpuNet::Workspace {
 public:
  explicit Workspace(const CpuNet& net) {
    const Layers& l = *net.layers_;
    const std::size_t squares = std::size_t(kChunkPositions) * kNumSquares;
    trunk.assign(squares * net.config_.channels, 0.0f);
    mid.assign(trunk.size(), 0.0f);
    input.assign(squares * l.convs[0].in, 0.0f);  // the padding planes stay zero
    head.assign(
        squares * std::max({net.config_.policy_channels, net.config_.value_channels, net.config_.moves_left_channels}),
        0.0f);
    hidden.assign(std::size_t(kChunkPositions) * std::max(net.config_.value_hidden, net.config_.moves_left_hidden),
                  0.0f);
    scratch.assign(l.onednn->ScratchBytes(kChunkPositions), 0);
  }
  // Activations, NHWC; in int8 most hold bytes (CpuNet::Int8Io).
  std::vector<float> trunk, mid, input;
  std::vector<float> head;       // a head's convolution
  std::vector<float> hidden;     // a dense head's hidden layer, a row a position
  std::vector<uint8_t> scratch;  // a convolution's quantized input
  OneDnnBindings bindings;       // what the trunk's runs bound, dying with the workspace
  Matrix pooled, pool_bias;      // global pooling: means and maxima, the bias; a column a position
  // Calibration: when not null, the [min, max] of each channel of each
  // layer's input is widened to cover what it sees.
  std::vector<ChannelRanges>* ranges = nullptr;
};

CpuNet::CpuNet(const ExportedNet& net, Precision precision)
    : config_(net.config), precision_(precision), layers_(std::make_unique<Layers>()) {
  CheckTensors(net);
  Layers& l = *layers_;
  l.convs.push_back(PaddedInput(Fold(net, "stem.conv", "stem.bn").Weights(), kStemInputMultiple));
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    l.convs.push_back(Fold(net, prefix + ".conv1", prefix + ".bn1").Weights());
    l.convs.push_back(Fold(net, prefix + ".conv2", prefix + ".bn2").Weights());
  }
  l.policy = int(l.convs.size());
  l.convs.push_back(Fold(net, "policy.conv", "policy.bn").Weights());
  l.convs.push_back(Unfolded(net, "policy.out", 1, true, false));
  auto dense_head = [&](const std::string& name) {
    DenseHead head{int(l.convs.size()), LoadLinear(net, name + ".fc2")};
    l.convs.push_back(Fold(net, name + ".conv", name + ".bn").Weights());
    l.convs.push_back(Unfolded(net, name + ".fc1", 8, false, true));
    return head;
  };
  l.value = dense_head("value");
  if (config_.moves_left) l.moves_left = dense_head("moves_left");
  l.onednn = std::make_unique<OneDnnTrunk>(l.convs, OneDnnTrunk::Type::kFp32);
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    Block block;
    block.pooling = config_.HasGlobalPooling(b);
    if (block.pooling) block.pool = LoadLinear(net, prefix + ".pool");
    l.blocks.push_back(std::move(block));
  }
  CheckFiniteOutputs(net.source);
  if (precision_ == Precision::kInt8) {
    l.onednn =
        std::make_unique<OneDnnTrunk>(l.convs, OneDnnTrunk::Type::kInt8, Int8Io(InputRanges(CalibrationPositions())));
  }
}

// In int8 the activations pass between layers in 8 bits, at steps from
// their ranges on the calibration positions: the trunk's running state
// (the stem's output, each block's sum) at one step a channel for all
// blocks, the union of the ranges its readers saw, since a block adds its
// output to it in place; every other activation at its reader's. Floats
// remain where float work sits between two layers: the encoder's planes
// into the stem, a pooling block's inner activation (the pooling bias is
// added to it, and it can go below zero: s8), and the heads' last layers
// (the logits, the dense heads' hidden layers).
std::vector<QuantizedIo> CpuNet::Int8Io(const std::vector<ChannelRanges>& ranges) const {
  const Layers& l = *layers_;
  // The heads' convolutions, each read by the layer after it.
  std::vector<int> heads{l.policy, l.value.conv};
  if (config_.moves_left) heads.push_back(l.moves_left.conv);
  std::vector<int> trunk_readers = heads;
  for (int b = 0; b < config_.blocks; ++b) trunk_readers.push_back(1 + 2 * b);
  std::vector<const ChannelRanges*> reader_ranges;
  for (int layer : trunk_readers) reader_ranges.push_back(&ranges[layer]);
  const std::vector<float> trunk_step = QuantizationSteps(UnionOfRanges(reader_ranges));
  std::vector<QuantizedIo> io(l.convs.size());
  for (std::size_t layer = 0; layer < io.size(); ++layer) io[layer] = QuantizedIo::FloatInput(ranges[layer]);
  // Layer `from` writes 8 bits for `to` at to's steps.
  auto chain = [&](int from, int to) {
    io[from].output_step = io[to].input_step;
    io[to].quantized_input = true;
  };
  for (int layer : trunk_readers) io[layer].input_step = trunk_step;
  io[0].output_step = trunk_step;
  for (int b = 0; b < config_.blocks; ++b) {
    io[1 + 2 * b].quantized_input = true;
    if (!l.blocks[b].pooling) chain(1 + 2 * b, 2 + 2 * b);
    io[2 + 2 * b].output_step = trunk_step;
  }
  for (int head : heads) {
    io[head].quantized_input = true;
    chain(head, head + 1);
  }
  return io;
}

void CpuNet::CheckFiniteOutputs(const std::string& source) const {
  const Position start = Position::Start();
  std::vector<float> input(std::size_t(config_.input_planes()) * kNumSquares);
  std::vector<float> outputs(kPolicySize + 3 + 1);
  EncodePositions(&start, 1, input.data(), config_.features());
  WorkspacePtr ws = NewWorkspace();
  const OneThreadTeam one_thread;
  Forward(input.data(), 1, outputs.data(), outputs.data() + kPolicySize, outputs.data() + kPolicySize + 3, *ws);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!std::isfinite(outputs[i]))
      throw Error(source + ": the net's " +
                  (i < kPolicySize       ? "policy"
                   : i < kPolicySize + 3 ? "value"
                                         : "moves-left") +
                  " output on the starting position is " + std::to_string(outputs[i]) +
                  "; a net must be finite to play");
}

std::vector<ChannelRanges> CpuNet::InputRanges(const std::vector<Position>& positions) const {
  std::vector<ChannelRanges> ranges;
  for (const TrunkConvWeights& conv : layers_->convs)
    ranges.push_back({std::vector<float>(conv.in, 0.0f), std::vector<float>(conv.in, 0.0f)});
  WorkspacePtr ws = NewWorkspace();
  ws->ranges = &ranges;
  const OneThreadTeam one_thread;
  std::vector<float> input(std::size_t(kChunkPositions) * config_.input_planes() * kNumSquares);
  std::vector<float> policy(kChunkPositions * kPolicySize), value(kChunkPositions * 3), moves_left(kChunkPositions);
  for (std::size_t first = 0; first < positions.size(); first += kChunkPositions) {
    const int n = int(std::min<std::size_t>(kChunkPositions, positions.size() - first));
    EncodePositions(positions.data() + first, n, input.data(), config_.features());
    Forward(input.data(), n, policy.data(), value.data(), moves_left.data(), *ws);
  }
  return ranges;
}

void CpuNet::RunLayer(int layer, int n, const void* in, const void* residual, void* out, Workspace& ws) const {
  const Layers& l = *layers_;
  if (ws.ranges) {
    assert(l.onednn->type() == OneDnnTrunk::Type::kFp32);  // calibration reads floats
    ChannelRanges& range = (*ws.ranges)[layer];
    const int channels = l.convs[layer].in;
    const float* floats = static_cast<const float*>(in);
    for (std::size_t s = 0; s < std::size_t(n) * kNumSquares; ++s)
      for (int c = 0; c < channels; ++c) {
        const float x = floats[s * channels + c];
        range.min[c] = std::min(range.min[c], x);
        range.max[c] = std::max(range.max[c], x);
      }
  }
  l.onednn->Run(layer, n, in, residual, out, ws.scratch.data(), ws.bindings);
}

CpuNet::~CpuNet() = default;

CpuNet::WorkspacePtr CpuNet::NewWorkspace() const { return WorkspacePtr(new Workspace(*this)); }

void CpuNet::WorkspaceDeleter::operator()(Workspace* workspace) const { delete workspace; }

namespace {

// Adds to every square of each channel the linear map of the channel means
// and maxima over the board (KataGo's global pooling bias): the NHWC
// activations of n positions, their pooled values as the columns of one
// matrix product.
void GlobalPoolingBias(const Linear& pool, int channels, int n, float* chunk, Matrix& pooled, Matrix& bias) {
  pooled.resize(2 * channels, n);
  auto board = [&](int i) {
    return Eigen::Map<RowMatrix>(chunk + std::size_t(i) * kNumSquares * channels, kNumSquares, channels);
  };
  for (int i = 0; i < n; ++i) {
    const auto squares = board(i);
    pooled.col(i).head(channels) = squares.colwise().mean().transpose();
    pooled.col(i).tail(channels) = squares.colwise().maxCoeff().transpose();
  }
  bias.noalias() = pool.weight * pooled;
  bias.colwise() += pool.bias;
  for (int i = 0; i < n; ++i) board(i).rowwise() += bias.col(i).transpose();
}

}  // namespace

void CpuNet::Forward(const float* input, int count, float* policy, float* value, float* moves_left,
                     Workspace& ws) const {
  const Layers& l = *layers_;
  const int c = config_.channels, planes = config_.input_planes(), stem_in = l.convs[0].in;
  for (int first = 0; first < count; first += kChunkPositions) {
    const int n = std::min(kChunkPositions, count - first);
    // The encoder's planes (NCHW) as NHWC.
    for (int i = 0; i < n; ++i) {
      const float* position = input + std::size_t(first + i) * planes * kNumSquares;
      float* nhwc = ws.input.data() + std::size_t(i) * kNumSquares * stem_in;
      for (Square s = 0; s < kNumSquares; ++s)
        for (int p = 0; p < planes; ++p) nhwc[s * stem_in + p] = position[p * kNumSquares + s];
    }
    RunLayer(0, n, ws.input.data(), nullptr, ws.trunk.data(), ws);
    for (int b = 0; b < config_.blocks; ++b) {
      RunLayer(1 + 2 * b, n, ws.trunk.data(), nullptr, ws.mid.data(), ws);
      if (l.blocks[b].pooling) GlobalPoolingBias(l.blocks[b].pool, c, n, ws.mid.data(), ws.pooled, ws.pool_bias);
      RunLayer(2 + 2 * b, n, ws.mid.data(), ws.trunk.data(), ws.trunk.data(), ws);
    }
    // The heads. Policy logit s * 8 + d is direction d at square s: the
    // output layer's NHWC rows, as they lie.
    RunLayer(l.policy, n, ws.trunk.data(), nullptr, ws.head.data(), ws);
    RunLayer(l.policy + 1, n, ws.head.data(), nullptr, policy + std::size_t(first) * kPolicySize, ws);
    // A dense head's hidden layer: a row a position, a column of `hidden`.
    auto dense = [&](const DenseHead& head, float* out) {
      RunLayer(head.conv, n, ws.trunk.data(), nullptr, ws.head.data(), ws);
      RunLayer(head.conv + 1, n, ws.head.data(), nullptr, ws.hidden.data(), ws);
      const Eigen::Map<const Matrix> hidden(ws.hidden.data(), l.convs[head.conv + 1].out, n);
      Eigen::Map<Matrix> result(out, head.fc2.weight.rows(), n);
      result.noalias() = head.fc2.weight * hidden;
      result.colwise() += head.fc2.bias;
    };
    dense(l.value, value + std::size_t(first) * 3);
    if (config_.moves_left)
      dense(l.moves_left, moves_left + first);
    else
      std::fill(moves_left + first, moves_left + first + n, 0.0f);
  }
}

}  // namespace loa
