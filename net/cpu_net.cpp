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
#include "net/onednn_trunk.h"

namespace loa {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;

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
  OneThreadTeam() : team_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThreadTeam() { omp_set_num_threads(team_); }
  OneThreadTeam(const OneThreadTeam&) = delete;
  OneThreadTeam& operator=(const OneThreadTeam&) = delete;

 private:
  int team_;
};

Vector ToVector(const HostTensor& t) { return Eigen::Map<const Vector>(t.data.data(), t.data.size()); }

// A 1x1 convolution on NHWC rows (a position's squares, or a chunk's):
// out = in * matrix + bias, matrix in x out.
struct PointwiseConv {
  Matrix matrix;
  Vector bias;
};

// A convolution with its batch norm folded in, as float weights
// ([out][in][k][k]) times a per-output scale, plus a bias.
struct FoldedConv {
  const HostTensor* weight;
  Vector scale, bias;
  int out() const { return int(weight->shape[0]); }
  int in() const { return int(weight->shape[1]); }
  // A 1x1 convolution as a matrix product on NHWC rows: y = x * matrix + bias.
  PointwiseConv Pointwise() const {
    assert(weight->shape[2] == 1);
    PointwiseConv p{Matrix(in(), out()), bias};
    for (int o = 0; o < out(); ++o)
      for (int c = 0; c < in(); ++c) p.matrix(c, o) = weight->data[std::size_t(o) * in() + c] * scale[o];
    return p;
  }
  TrunkConvWeights Weights() const {
    return {weight->data, std::vector<float>(scale.data(), scale.data() + scale.size()),
            std::vector<float>(bias.data(), bias.data() + bias.size()), out(), in()};
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

// conv1x1-BN-ReLU, flatten, linear-ReLU, linear: the value and moves-left
// heads. PyTorch flattens channel * 64 + square; the convolution's NHWC
// output is square * C + channel, so fc1's columns are permuted at load.
struct DenseHead {
  PointwiseConv conv;
  Linear fc1, fc2;
};

}  // namespace

struct CpuNet::Layers {
  // The stem, then each block's two convolutions (TrunkConv's order).
  std::vector<TrunkConvWeights> trunk_weights;
  std::unique_ptr<OneDnnTrunk> trunk;
  std::vector<Block> blocks;
  PointwiseConv policy_conv, policy_out;
  DenseHead value, moves_left;
};

const char* PrecisionName(Precision p) { return p == Precision::kInt8 ? "int8" : "fp32"; }

Precision ResolvePrecision(const std::string& option) {
  if (option == "fp32") return Precision::kFp32;
  if (option != "int8" && option != "auto") throw Error("precision: '" + option + "' is not fp32, int8 or auto");
  if (__builtin_cpu_supports("avx2")) return Precision::kInt8;
  // Without AVX2 oneDNN has no fast int8 convolution (SSE4.1 kernels at best).
  if (option == "int8") {
    static std::once_flag said;
    std::call_once(said,
                   [] { std::fprintf(stderr, "precision int8: this processor has no AVX2; the net runs in fp32\n"); });
  }
  return Precision::kFp32;
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
    input.assign(squares * net.config_.input_planes(), 0.0f);
    scratch.assign(l.trunk->ScratchBytes(kChunkPositions), 0);
    hidden.resize(std::max(net.config_.value_hidden, net.config_.moves_left_hidden), kChunkPositions);
  }
  std::vector<float> trunk, mid, input;
  std::vector<uint8_t> scratch;    // a convolution's quantized input
  RowMatrix policy, logits, head;  // the heads' 1x1 convolutions, a row a square
  Matrix hidden;                   // the dense heads' hidden layer, a column a position
  Matrix pooled, pool_bias;        // global pooling: means and maxima, the bias; a column a position
  // Calibration: when not null, the [min, max] of each channel of each
  // trunk convolution's input is widened to cover what it sees.
  std::vector<ChannelRanges>* ranges = nullptr;
};

CpuNet::CpuNet(const ExportedNet& net, Precision precision)
    : config_(net.config), precision_(precision), layers_(std::make_unique<Layers>()) {
  CheckTensorLayout(net);
  Layers& l = *layers_;
  l.trunk_weights.push_back(Fold(net, "stem.conv", "stem.bn").Weights());
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    l.trunk_weights.push_back(Fold(net, prefix + ".conv1", prefix + ".bn1").Weights());
    l.trunk_weights.push_back(Fold(net, prefix + ".conv2", prefix + ".bn2").Weights());
  }
  l.trunk = std::make_unique<OneDnnTrunk>(l.trunk_weights, OneDnnTrunk::Type::kFp32);
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    Block block;
    block.pooling = config_.HasGlobalPooling(b);
    if (block.pooling) block.pool = LoadLinear(net, prefix + ".pool");
    l.blocks.push_back(std::move(block));
  }
  l.policy_conv = Fold(net, "policy.conv", "policy.bn").Pointwise();
  const HostTensor& out = net.Get("policy.out.weight");
  l.policy_out = {Eigen::Map<const RowMatrix>(out.data.data(), kNumDirections, config_.policy_channels).transpose(),
                  ToVector(net.Get("policy.out.bias"))};
  auto load_head = [&](const std::string& name) {
    DenseHead head{Fold(net, name + ".conv", name + ".bn").Pointwise(), LoadLinear(net, name + ".fc1"),
                   LoadLinear(net, name + ".fc2")};
    const int channels = int(head.conv.matrix.cols());
    Matrix permuted(head.fc1.weight.rows(), head.fc1.weight.cols());
    for (int ch = 0; ch < channels; ++ch)
      for (Square s = 0; s < kNumSquares; ++s)
        permuted.col(s * channels + ch) = head.fc1.weight.col(ch * kNumSquares + s);
    head.fc1.weight = std::move(permuted);
    return head;
  };
  l.value = load_head("value");
  if (config_.moves_left) l.moves_left = load_head("moves_left");
  if (precision_ == Precision::kInt8)
    l.trunk =
        std::make_unique<OneDnnTrunk>(l.trunk_weights, OneDnnTrunk::Type::kInt8, InputRanges(CalibrationPositions()));
}

std::vector<ChannelRanges> CpuNet::InputRanges(const std::vector<Position>& positions) const {
  std::vector<ChannelRanges> ranges(1 + 2 * config_.blocks);
  for (int layer = 0; layer < int(ranges.size()); ++layer) {
    ranges[layer].min.assign(layers_->trunk_weights[layer].in, 0.0f);
    ranges[layer].max.assign(layers_->trunk_weights[layer].in, 0.0f);
  }
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

void CpuNet::TrunkConv(int layer, int n, const float* in, const float* residual, float* out, Workspace& ws) const {
  const Layers& l = *layers_;
  if (ws.ranges) {
    ChannelRanges& range = (*ws.ranges)[layer];
    const int channels = l.trunk_weights[layer].in;
    for (std::size_t s = 0; s < std::size_t(n) * kNumSquares; ++s)
      for (int c = 0; c < channels; ++c) {
        const float x = in[s * channels + c];
        range.min[c] = std::min(range.min[c], x);
        range.max[c] = std::max(range.max[c], x);
      }
  }
  l.trunk->Run(layer, n, in, residual, out, ws.scratch.data());
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

// Returns relu?(in * conv.matrix + bias) for the rows of in.
void Pointwise(const PointwiseConv& conv, const Eigen::Ref<const RowMatrix>& in, bool relu, RowMatrix& out) {
  out.resize(in.rows(), conv.matrix.cols());
  out.noalias() = in * conv.matrix;
  out.rowwise() += conv.bias.transpose();
  if (relu) out = out.cwiseMax(0.0f);
}

// The linear layers of a dense head over n positions; writes outputs x n.
void DenseHeadLinear(const DenseHead& head, const Eigen::Map<const Matrix>& flat, int n, Matrix& hidden, float* out) {
  const int rows = int(head.fc1.weight.cols());
  auto h = hidden.topLeftCorner(head.fc1.weight.rows(), n);
  h.noalias() = head.fc1.weight * flat.topLeftCorner(rows, n);
  h = (h.colwise() + head.fc1.bias).cwiseMax(0.0f);
  Eigen::Map<Matrix> result(out, head.fc2.weight.rows(), n);
  result.noalias() = head.fc2.weight * h;
  result.colwise() += head.fc2.bias;
}

}  // namespace

void CpuNet::Forward(const float* input, int count, float* policy, float* value, float* moves_left,
                     Workspace& ws) const {
  const Layers& l = *layers_;
  const int c = config_.channels, planes = config_.input_planes();
  for (int first = 0; first < count; first += kChunkPositions) {
    const int n = std::min(kChunkPositions, count - first);
    // The encoder's planes (NCHW) as NHWC.
    for (int i = 0; i < n; ++i) {
      const float* position = input + std::size_t(first + i) * planes * kNumSquares;
      float* nhwc = ws.input.data() + std::size_t(i) * kNumSquares * planes;
      for (int p = 0; p < planes; ++p)
        for (Square s = 0; s < kNumSquares; ++s) nhwc[s * planes + p] = position[p * kNumSquares + s];
    }
    TrunkConv(0, n, ws.input.data(), nullptr, ws.trunk.data(), ws);
    for (int b = 0; b < config_.blocks; ++b) {
      TrunkConv(1 + 2 * b, n, ws.trunk.data(), nullptr, ws.mid.data(), ws);
      if (l.blocks[b].pooling) GlobalPoolingBias(l.blocks[b].pool, c, n, ws.mid.data(), ws.pooled, ws.pool_bias);
      TrunkConv(2 + 2 * b, n, ws.mid.data(), ws.trunk.data(), ws.trunk.data(), ws);
    }
    // The heads: 1x1 convolutions as one matrix product over the chunk's
    // squares. Policy logit s * 8 + d is direction d at square s: a
    // position's rows of the logits, as they lie.
    const Eigen::Map<const RowMatrix> trunk(ws.trunk.data(), std::size_t(n) * kNumSquares, c);
    Pointwise(l.policy_conv, trunk, true, ws.policy);
    Pointwise(l.policy_out, ws.policy, false, ws.logits);
    std::copy(ws.logits.data(), ws.logits.data() + std::size_t(n) * kPolicySize,
              policy + std::size_t(first) * kPolicySize);
    // Dense heads: a position's NHWC rows, flattened, are one column.
    auto dense = [&](const DenseHead& head, float* out) {
      Pointwise(head.conv, trunk, true, ws.head);
      const Eigen::Map<const Matrix> flat(ws.head.data(), kNumSquares * ws.head.cols(), n);
      DenseHeadLinear(head, flat, n, ws.hidden, out);
    };
    dense(l.value, value + std::size_t(first) * 3);
    if (config_.moves_left)
      dense(l.moves_left, moves_left + first);
    else
      std::fill(moves_left + first, moves_left + first + n, 0.0f);
  }
}

// A workspace with the input and output buffers of one chunk.
struct CpuEvaluator::Slot {
  CpuNet::WorkspacePtr workspace;
  std::vector<float> input, policy, value, moves_left;
};

CpuEvaluator::CpuEvaluator(const ExportedNet& net, int threads, Precision precision)
    : net_(net, precision), threads_(threads) {
  if (threads < 1 || threads > 1024) throw Error("eigen evaluator: threads = " + std::to_string(threads));
}

CpuEvaluator::~CpuEvaluator() = default;

std::unique_ptr<CpuEvaluator::Slot> CpuEvaluator::Acquire() {
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
  slot->input.resize(std::size_t(kChunkPositions) * net_.config().input_planes() * kNumSquares);
  slot->policy.resize(std::size_t(kChunkPositions) * kPolicySize);
  slot->value.resize(kChunkPositions * 3);
  slot->moves_left.resize(kChunkPositions);
  return slot;
}

void CpuEvaluator::Release(std::unique_ptr<Slot> slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_slots_.push_back(std::move(slot));
}

void CpuEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  // Chunks of up to kChunkPositions, split evenly over the threads.
  const int threads = std::max(1, std::min(threads_, count));
  const int size = std::min(kChunkPositions, (count + threads - 1) / threads);
  const int chunks = (count + size - 1) / size;
  auto run_chunk = [&](Slot& slot, int chunk) {
    const int first = chunk * size, n = std::min(size, count - first);
    EncodePositions(positions + first, n, slot.input.data(), net_.config().features());
    net_.Forward(slot.input.data(), n, slot.policy.data(), slot.value.data(), slot.moves_left.data(), *slot.workspace);
    for (int i = 0; i < n; ++i)
      DecodeOutput(positions[first + i], slot.policy.data() + std::size_t(i) * kPolicySize, slot.value.data() + i * 3,
                   slot.moves_left[i], &out[first + i]);
  };
  if (threads <= 1) {
    const OneThreadTeam one_thread;
    std::unique_ptr<Slot> slot = Acquire();
    for (int chunk = 0; chunk < chunks; ++chunk) run_chunk(*slot, chunk);
    Release(std::move(slot));
    return;
  }
  std::vector<std::unique_ptr<Slot>> slots(threads);
  for (auto& slot : slots) slot = Acquire();
#pragma omp parallel num_threads(threads)
  {
    // Each thread of this team is a team of one for oneDNN, which otherwise
    // plans a kernel's work for more threads than its nested region has.
    const OneThreadTeam one_thread;
#pragma omp for schedule(static)
    for (int chunk = 0; chunk < chunks; ++chunk) run_chunk(*slots[omp_get_thread_num()], chunk);
  }
  for (auto& slot : slots) Release(std::move(slot));
}

}  // namespace loa
