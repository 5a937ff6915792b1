#include "net/eigen_net.h"

// Parallelism is ours (over chunks of a batch), not Eigen's.
#define EIGEN_DONT_PARALLELIZE
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>

#include <cstdio>

#include "core/error.h"
#include "core/position.h"
#include "net/calibration.h"
#include "net/cpu_features.h"
#include "net/direct_conv.h"
#include "net/encoder.h"

namespace loa {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;

// Positions per chunk: the trunk runs layer by layer over a chunk, so that
// each layer's weights (147 KB at 64 channels) are read from the cache once
// per chunk; two padded trunks of 8 positions (460 KB) stay in L2 beside
// them. The heads' linear layers run as one matrix product per chunk.
constexpr int kChunkPositions = 8;

Vector ToVector(const HostTensor& t) { return Eigen::Map<const Vector>(t.data.data(), t.data.size()); }

// A convolution with its batch norm folded in, as float weights
// ([out][in][k][k]) times a per-output scale, plus a bias.
struct FoldedConv {
  const HostTensor* weight;
  Vector scale, bias;
  int out() const { return int(weight->shape[0]); }
  int in() const { return int(weight->shape[1]); }
  DirectConv Fp32() const {
    return DirectConv(weight->data.data(), out(), in(), int(weight->shape[2]), scale.data(), bias.data());
  }
  Int8Conv Int8(const ActivationQuantizer& input) const {
    return Int8Conv(weight->data.data(), out(), in(), scale.data(), bias.data(), input);
  }
};

FoldedConv Fold(const ExportedNet& net, const std::string& conv, const std::string& bn) {
  Vector gamma = ToVector(net.Get(bn + ".weight")), beta = ToVector(net.Get(bn + ".bias"));
  Vector mean = ToVector(net.Get(bn + ".running_mean")), var = ToVector(net.Get(bn + ".running_var"));
  Vector scale = (gamma.array() / (var.array() + float(kBatchNormEpsilon)).sqrt()).matrix();
  Vector bias = beta - (mean.array() * scale.array()).matrix();
  return {&net.Get(conv + ".weight"), scale, bias};
}

// Returns the convolution `conv` with batch norm `bn` folded in.
DirectConv FoldConv(const ExportedNet& net, const std::string& conv, const std::string& bn) {
  return Fold(net, conv, bn).Fp32();
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
  DirectConv conv1, conv2;
  bool pooling = false;
  Linear pool;  // c x 2c: channel means, then maxima
};

// conv1x1-BN-ReLU, flatten in PyTorch's order (channel * 64 + square),
// linear-ReLU, linear: the value and moves-left heads.
struct DenseHead {
  DirectConv conv;
  Linear fc1, fc2;
};

}  // namespace

struct EigenNet::Layers {
  DirectConv stem;
  std::vector<Block> blocks;
  DirectConv policy_conv, policy_out;
  DenseHead value, moves_left;
  // In int8: the trunk convolutions in TrunkConv's order; else empty.
  std::vector<Int8Conv> int8;

  const DirectConv& Trunk(int layer) const {
    return layer == 0 ? stem : layer % 2 ? blocks[(layer - 1) / 2].conv1 : blocks[(layer - 1) / 2].conv2;
  }
};

const char* PrecisionName(Precision p) { return p == Precision::kInt8 ? "int8" : "fp32"; }

Precision ResolvePrecision(const std::string& option) {
  if (option == "fp32") return Precision::kFp32;
  if (option != "int8" && option != "auto") throw Error("precision: '" + option + "' is not fp32, int8 or auto");
  if (Cpu().avx2_fma) return Precision::kInt8;
  if (option == "int8") {
    static std::once_flag said;
    std::call_once(said,
                   [] { std::fprintf(stderr, "precision int8: this processor has no AVX2; the net runs in fp32\n"); });
  }
  return Precision::kFp32;
}

// Padded planes (net/direct_conv.h) of a chunk of positions, position-major.
class EigenNet::Workspace {
 public:
  explicit Workspace(const EigenNet& net) {
    const Layers& l = *net.layers_;
    int head = std::max(l.policy_conv.rounded_out(), l.value.conv.rounded_out());
    if (net.config_.moves_left) head = std::max(head, l.moves_left.conv.rounded_out());
    trunk_planes = l.stem.rounded_out();
    head_planes = head;
    trunk.assign(std::size_t(kChunkPositions) * trunk_planes * kPaddedPlane, 0.0f);
    mid.assign(trunk.size(), 0.0f);
    input.assign(std::size_t(net.config_.input_planes) * kPaddedPlane, 0.0f);
    heads.assign(std::size_t(head_planes) * kPaddedPlane, 0.0f);
    quantized.assign(ActivationQuantizer::Bytes(std::max(trunk_planes, net.config_.input_planes)), 0);
    logits.assign(std::size_t(l.policy_out.rounded_out()) * kPaddedPlane, 0.0f);
    const int widest = std::max(net.config_.value_channels, net.config_.moves_left_channels);
    flat.resize(std::size_t(widest) * kNumSquares, kChunkPositions);
    hidden.resize(std::max(net.config_.value_hidden, net.config_.moves_left_hidden), kChunkPositions);
  }
  int trunk_planes = 0, head_planes = 0;
  std::vector<float> trunk, mid, input, heads, logits;
  std::vector<uint8_t> quantized;  // a trunk convolution's input in int8
  Matrix flat, hidden;
  // Calibration: when not null, the [min, max] of each channel of each
  // trunk convolution's input is widened to cover what it sees.
  std::vector<ChannelRanges>* ranges = nullptr;
};

EigenNet::EigenNet(const ExportedNet& net, Precision precision)
    : config_(net.config), precision_(precision), layers_(std::make_unique<Layers>()) {
  CheckTensorLayout(net);
  Layers& l = *layers_;
  std::vector<FoldedConv> trunk = {Fold(net, "stem.conv", "stem.bn")};
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    trunk.push_back(Fold(net, prefix + ".conv1", prefix + ".bn1"));
    trunk.push_back(Fold(net, prefix + ".conv2", prefix + ".bn2"));
  }
  l.stem = trunk[0].Fp32();
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    Block block;
    block.conv1 = trunk[1 + 2 * b].Fp32();
    block.conv2 = trunk[2 + 2 * b].Fp32();
    block.pooling = config_.HasGlobalPooling(b);
    if (block.pooling) block.pool = LoadLinear(net, prefix + ".pool");
    l.blocks.push_back(std::move(block));
  }
  l.policy_conv = FoldConv(net, "policy.conv", "policy.bn");
  const HostTensor& out = net.Get("policy.out.weight");
  l.policy_out = DirectConv(out.data.data(), kNumDirections, config_.policy_channels, 1, nullptr,
                            net.Get("policy.out.bias").data.data());
  auto load_head = [&](const std::string& name) {
    return DenseHead{FoldConv(net, name + ".conv", name + ".bn"), LoadLinear(net, name + ".fc1"),
                     LoadLinear(net, name + ".fc2")};
  };
  l.value = load_head("value");
  if (config_.moves_left) l.moves_left = load_head("moves_left");
  if (precision_ == Precision::kInt8) {
    const std::vector<ChannelRanges> ranges = InputRanges(CalibrationPositions());
    for (std::size_t i = 0; i < trunk.size(); ++i)
      l.int8.push_back(trunk[i].Int8(ActivationQuantizer::ForRanges(ranges[i].min, ranges[i].max)));
  }
}

std::vector<EigenNet::ChannelRanges> EigenNet::InputRanges(const std::vector<Position>& positions) const {
  std::vector<ChannelRanges> ranges(1 + 2 * config_.blocks);
  for (int layer = 0; layer < int(ranges.size()); ++layer) {
    ranges[layer].min.assign(layers_->Trunk(layer).in(), 0.0f);
    ranges[layer].max.assign(layers_->Trunk(layer).in(), 0.0f);
  }
  WorkspacePtr ws = NewWorkspace();
  ws->ranges = &ranges;
  std::vector<float> input(std::size_t(kChunkPositions) * kInputSize), policy(kChunkPositions * kPolicySize);
  std::vector<float> value(kChunkPositions * 3), moves_left(kChunkPositions);
  for (std::size_t first = 0; first < positions.size(); first += kChunkPositions) {
    const int n = int(std::min<std::size_t>(kChunkPositions, positions.size() - first));
    EncodePositions(positions.data() + first, n, input.data());
    Forward(input.data(), n, policy.data(), value.data(), moves_left.data(), *ws);
  }
  return ranges;
}

void EigenNet::TrunkConv(int layer, const float* in, const float* residual, float* out, Workspace& ws) const {
  const Layers& l = *layers_;
  const DirectConv& conv = l.Trunk(layer);
  if (ws.ranges) {
    ChannelRanges& range = (*ws.ranges)[layer];
    for (int c = 0; c < conv.in(); ++c)
      for (Square s = 0; s < kNumSquares; ++s) {
        const float x = in[c * kPaddedPlane + PaddedIndex(s)];
        range.min[c] = std::min(range.min[c], x);
        range.max[c] = std::max(range.max[c], x);
      }
  }
  if (l.int8.empty())
    conv.Run(in, residual, true, out);
  else
    l.int8[layer].Run(in, ws.quantized.data(), residual, true, out);
}

EigenNet::~EigenNet() = default;

EigenNet::WorkspacePtr EigenNet::NewWorkspace() const { return WorkspacePtr(new Workspace(*this)); }

void EigenNet::WorkspaceDeleter::operator()(Workspace* workspace) const { delete workspace; }

namespace {

// Adds to every square of each channel the linear map of the channel means
// and maxima over the board (KataGo's global pooling bias); padding stays 0.
void GlobalPoolingBias(const Linear& pool, int channels, float* planes) {
  Vector pooled(2 * channels);
  for (int c = 0; c < channels; ++c) {
    const float* plane = planes + c * kPaddedPlane;
    float sum = 0, max = plane[PaddedIndex(0)];
    for (Square s = 0; s < kNumSquares; ++s) {
      sum += plane[PaddedIndex(s)];
      max = std::max(max, plane[PaddedIndex(s)]);
    }
    pooled[c] = sum / kNumSquares;
    pooled[channels + c] = max;
  }
  Vector bias = pool.weight * pooled + pool.bias;
  for (int c = 0; c < channels; ++c) {
    float* plane = planes + c * kPaddedPlane;
    for (Square s = 0; s < kNumSquares; ++s) plane[PaddedIndex(s)] += bias[c];
  }
}

// Runs a dense head's convolution on one position's trunk and writes its
// flattened output (PyTorch's order) into column `column` of flat.
void DenseHeadConv(const DenseHead& head, const float* trunk, float* scratch, Matrix& flat, int column) {
  head.conv.Run(trunk, nullptr, true, scratch);
  float* dst = flat.col(column).data();
  for (int c = 0; c < head.conv.out(); ++c)
    for (Square s = 0; s < kNumSquares; ++s) dst[c * kNumSquares + s] = scratch[c * kPaddedPlane + PaddedIndex(s)];
}

// The linear layers of a dense head over n positions; writes outputs x n.
void DenseHeadLinear(const DenseHead& head, const Matrix& flat, int n, Matrix& hidden, float* out) {
  const int rows = int(head.fc1.weight.cols());
  auto h = hidden.topLeftCorner(head.fc1.weight.rows(), n);
  h.noalias() = head.fc1.weight * flat.topLeftCorner(rows, n);
  h = (h.colwise() + head.fc1.bias).cwiseMax(0.0f);
  Eigen::Map<Matrix> result(out, head.fc2.weight.rows(), n);
  result.noalias() = head.fc2.weight * h;
  result.colwise() += head.fc2.bias;
}

}  // namespace

void EigenNet::Forward(const float* input, int count, float* policy, float* value, float* moves_left,
                       Workspace& ws) const {
  const Layers& l = *layers_;
  const int c = config_.channels, planes = config_.input_planes;
  const std::size_t trunk_size = std::size_t(ws.trunk_planes) * kPaddedPlane;
  for (int first = 0; first < count; first += kChunkPositions) {
    const int n = std::min(kChunkPositions, count - first);
    for (int i = 0; i < n; ++i) {
      PadPlanes(input + std::size_t(first + i) * kInputSize, planes, ws.input.data());
      TrunkConv(0, ws.input.data(), nullptr, ws.trunk.data() + i * trunk_size, ws);
    }
    for (int b = 0; b < config_.blocks; ++b) {
      for (int i = 0; i < n; ++i) {
        float* trunk = ws.trunk.data() + i * trunk_size;
        float* mid = ws.mid.data() + i * trunk_size;
        TrunkConv(1 + 2 * b, trunk, nullptr, mid, ws);
        if (l.blocks[b].pooling) GlobalPoolingBias(l.blocks[b].pool, c, mid);
        TrunkConv(2 + 2 * b, mid, trunk, trunk, ws);  // in place: channel o reads its own residual first
      }
    }
    for (int i = 0; i < n; ++i) {
      const float* trunk = ws.trunk.data() + i * trunk_size;
      // Policy: 8 direction planes; logit s * 8 + d is plane d at square s.
      l.policy_conv.Run(trunk, nullptr, true, ws.heads.data());
      l.policy_out.Run(ws.heads.data(), nullptr, false, ws.logits.data());
      float* logits = policy + std::size_t(first + i) * kPolicySize;
      for (Square s = 0; s < kNumSquares; ++s)
        for (int d = 0; d < kNumDirections; ++d)
          logits[s * kNumDirections + d] = ws.logits[d * kPaddedPlane + PaddedIndex(s)];
      DenseHeadConv(l.value, trunk, ws.heads.data(), ws.flat, i);
    }
    DenseHeadLinear(l.value, ws.flat, n, ws.hidden, value + std::size_t(first) * 3);
    if (config_.moves_left) {
      for (int i = 0; i < n; ++i)
        DenseHeadConv(l.moves_left, ws.trunk.data() + i * trunk_size, ws.heads.data(), ws.flat, i);
      DenseHeadLinear(l.moves_left, ws.flat, n, ws.hidden, moves_left + first);
    } else {
      std::fill(moves_left + first, moves_left + first + n, 0.0f);
    }
  }
}

// A workspace with the input and output buffers of one chunk.
struct EigenEvaluator::Slot {
  EigenNet::WorkspacePtr workspace;
  std::vector<float> input, policy, value, moves_left;
};

EigenEvaluator::EigenEvaluator(const ExportedNet& net, int threads, Precision precision)
    : net_(net, precision), threads_(threads) {
  if (threads < 1 || threads > 1024) throw Error("eigen evaluator: threads = " + std::to_string(threads));
}

EigenEvaluator::~EigenEvaluator() = default;

std::unique_ptr<EigenEvaluator::Slot> EigenEvaluator::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_slots_.empty()) {
      std::unique_ptr<Slot> slot = std::move(free_slots_.back());
      free_slots_.pop_back();
      return slot;
    }
  }
  auto slot = std::make_unique<Slot>();
  slot->workspace = net_.NewWorkspace();
  slot->input.resize(std::size_t(kChunkPositions) * kInputSize);
  slot->policy.resize(std::size_t(kChunkPositions) * kPolicySize);
  slot->value.resize(kChunkPositions * 3);
  slot->moves_left.resize(kChunkPositions);
  return slot;
}

void EigenEvaluator::Release(std::unique_ptr<Slot> slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_slots_.push_back(std::move(slot));
}

void EigenEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  const int chunks = (count + kChunkPositions - 1) / kChunkPositions;
  const int threads = std::min(threads_, chunks);
  auto run_chunk = [&](Slot& slot, int chunk) {
    const int first = chunk * kChunkPositions, n = std::min(kChunkPositions, count - first);
    EncodePositions(positions + first, n, slot.input.data());
    net_.Forward(slot.input.data(), n, slot.policy.data(), slot.value.data(), slot.moves_left.data(), *slot.workspace);
    for (int i = 0; i < n; ++i)
      DecodeOutput(positions[first + i], slot.policy.data() + std::size_t(i) * kPolicySize, slot.value.data() + i * 3,
                   slot.moves_left[i], &out[first + i]);
  };
  if (threads <= 1) {
    std::unique_ptr<Slot> slot = Acquire();
    for (int chunk = 0; chunk < chunks; ++chunk) run_chunk(*slot, chunk);
    Release(std::move(slot));
    return;
  }
  std::vector<std::unique_ptr<Slot>> slots(threads);
  for (auto& slot : slots) slot = Acquire();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int chunk = 0; chunk < chunks; ++chunk) run_chunk(*slots[omp_get_thread_num()], chunk);
  for (auto& slot : slots) Release(std::move(slot));
}

}  // namespace loa
