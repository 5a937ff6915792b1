#include "net/eigen_net.h"

// Parallelism is ours (over chunks of a batch), not Eigen's.
#define EIGEN_DONT_PARALLELIZE
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "net/encoder.h"

namespace loa {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
using Vector = Eigen::VectorXf;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

// Positions per forward chunk: the im2col buffer of a 64-channel net is then
// 576 x 1024 floats (2.4 MB), which stays in the L2 caches. Larger batches
// run chunk by chunk. Measured with `loaz bench net` (8, 16, 32 tried).
constexpr int kChunkPositions = 16;

// The 9 taps of a 3x3 convolution: for output square s and tap ky * 3 + kx,
// the input square (rank + ky - 1, file + kx - 1) or -1 off the board.
struct TapTable {
  int8_t source[kNumSquares][9];
  TapTable() {
    for (Square s = 0; s < kNumSquares; ++s)
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx) {
          int f = FileOf(s) + kx - 1, r = RankOf(s) + ky - 1;
          source[s][ky * 3 + kx] = int8_t(OnBoard(f, r) ? MakeSquare(f, r) : -1);
        }
  }
};
const TapTable kTaps;

// A convolution (or linear layer) with its batch norm folded in:
// y = weight * x + bias, weight of shape out x (taps * in).
struct Dense {
  Matrix weight;
  Vector bias;
};

Vector ToVector(const HostTensor& t) { return Eigen::Map<const Vector>(t.data.data(), t.data.size()); }

// Returns the convolution `prefix`.conv(.weight) folded with batch norm `bn`:
// columns ordered tap-major (tap * in + channel) to match the im2col rows.
Dense FoldConv(const ExportedNet& net, const std::string& conv, const std::string& bn) {
  const HostTensor& w = net.Get(conv + ".weight");
  const int64_t out = w.shape[0], in = w.shape[1], taps = w.shape[2] * w.shape[3];
  Vector gamma = ToVector(net.Get(bn + ".weight")), beta = ToVector(net.Get(bn + ".bias"));
  Vector mean = ToVector(net.Get(bn + ".running_mean")), var = ToVector(net.Get(bn + ".running_var"));
  Vector scale = (gamma.array() / (var.array() + float(kBatchNormEpsilon)).sqrt()).matrix();
  Dense d;
  d.weight.resize(out, taps * in);
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = 0; i < in; ++i)
      for (int64_t t = 0; t < taps; ++t) d.weight(o, t * in + i) = w.data[(o * in + i) * taps + t] * scale[o];
  d.bias = beta - (mean.array() * scale.array()).matrix();
  return d;
}

// Returns the linear layer `name` (PyTorch's weight is out x in, row-major).
Dense Linear(const ExportedNet& net, const std::string& name) {
  const HostTensor& w = net.Get(name + ".weight");
  Dense d;
  d.weight = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      w.data.data(), w.shape[0], w.shape[1]);
  d.bias = ToVector(net.Get(name + ".bias"));
  return d;
}

// A head's first linear layer reads PyTorch's flattened [channel][square];
// our activations are [square][channel]: permute its columns once.
Dense LinearOverSquares(const ExportedNet& net, const std::string& name, int channels) {
  Dense d = Linear(net, name);
  Matrix permuted(d.weight.rows(), d.weight.cols());
  for (int c = 0; c < channels; ++c)
    for (int s = 0; s < kNumSquares; ++s) permuted.col(s * channels + c) = d.weight.col(c * kNumSquares + s);
  d.weight = std::move(permuted);
  return d;
}

struct Block {
  Dense conv1, conv2;
  bool pooling = false;
  Dense pool;  // out = c, in = 2c (means then maxima)
};

struct Head {
  Dense conv, fc1, fc2;
};

}  // namespace

struct EigenNet::Layers {
  Dense stem;
  std::vector<Block> blocks;
  Dense policy_conv, policy_out;
  Head value, moves_left;
};

// Activations are matrices channels x (positions * 64), column-major: one
// column per square of a position, its channels contiguous.
class EigenNet::Workspace {
 public:
  explicit Workspace(const NetConfig& c) {
    const int columns = kChunkPositions * kNumSquares;
    const int widest =
        std::max({c.channels, c.input_planes, c.policy_channels, c.value_channels, c.moves_left_channels});
    x.resize(widest, columns);
    y.resize(c.channels, columns);
    z.resize(c.channels, columns);
    cols.resize(9 * std::max(c.channels, c.input_planes), columns);
    head.resize(widest, columns);
    hidden.resize(std::max(c.value_hidden, c.moves_left_hidden), kChunkPositions);
  }
  Matrix x, y, z, cols, head, hidden;
};

EigenNet::EigenNet(const ExportedNet& net) : config_(net.config), layers_(std::make_unique<Layers>()) {
  CheckTensorLayout(net);
  Layers& l = *layers_;
  l.stem = FoldConv(net, "stem.conv", "stem.bn");
  for (int b = 0; b < config_.blocks; ++b) {
    std::string prefix = "blocks." + std::to_string(b);
    Block block;
    block.conv1 = FoldConv(net, prefix + ".conv1", prefix + ".bn1");
    block.conv2 = FoldConv(net, prefix + ".conv2", prefix + ".bn2");
    block.pooling = config_.HasGlobalPooling(b);
    if (block.pooling) block.pool = Linear(net, prefix + ".pool");
    l.blocks.push_back(std::move(block));
  }
  l.policy_conv = FoldConv(net, "policy.conv", "policy.bn");
  l.policy_out = Linear(net, "policy.out");  // a 1x1 conv: [8, pc, 1, 1] reads as 8 x pc
  auto load_head = [&](const std::string& name, int channels) {
    Head h;
    h.conv = FoldConv(net, name + ".conv", name + ".bn");
    h.fc1 = LinearOverSquares(net, name + ".fc1", channels);
    h.fc2 = Linear(net, name + ".fc2");
    return h;
  };
  l.value = load_head("value", config_.value_channels);
  if (config_.moves_left) l.moves_left = load_head("moves_left", config_.moves_left_channels);
}

EigenNet::~EigenNet() = default;

EigenNet::WorkspacePtr EigenNet::NewWorkspace() const { return WorkspacePtr(new Workspace(config_)); }

void EigenNet::WorkspaceDeleter::operator()(Workspace* workspace) const { delete workspace; }

namespace {

// out = relu?(conv3x3(in) + bias) over `positions` positions; in is
// in_channels x (positions * 64). cols is the im2col scratch.
void Conv3x3(const Dense& conv, const float* in, int in_channels, int positions, float* cols, float* out) {
  const int k = 9 * in_channels, columns = positions * kNumSquares;
  const std::size_t bytes = std::size_t(in_channels) * sizeof(float);
  for (int n = 0; n < positions; ++n) {
    const float* in_position = in + std::size_t(n) * kNumSquares * in_channels;
    for (Square s = 0; s < kNumSquares; ++s) {
      float* dst = cols + (std::size_t(n) * kNumSquares + s) * k;
      for (int tap = 0; tap < 9; ++tap, dst += in_channels) {
        int source = kTaps.source[s][tap];
        if (source < 0)
          std::memset(dst, 0, bytes);
        else
          std::memcpy(dst, in_position + source * in_channels, bytes);
      }
    }
  }
  MatrixMap result(out, conv.weight.rows(), columns);
  result.noalias() = conv.weight * ConstMatrixMap(cols, k, columns);
  result.colwise() += conv.bias;
}

// out = relu(conv1x1(in) + bias).
void Conv1x1Relu(const Dense& conv, const float* in, int positions, float* out) {
  const int columns = positions * kNumSquares;
  MatrixMap result(out, conv.weight.rows(), columns);
  result.noalias() = conv.weight * ConstMatrixMap(in, conv.weight.cols(), columns);
  result = (result.colwise() + conv.bias).cwiseMax(0.0f);
}

// Adds to each position's squares the linear map of its channel means and
// maxima (KataGo's global pooling bias).
void GlobalPoolingBias(const Dense& pool, float* activations, int channels, int positions) {
  Vector pooled(2 * channels);
  for (int n = 0; n < positions; ++n) {
    MatrixMap a(activations + std::size_t(n) * kNumSquares * channels, channels, kNumSquares);
    pooled.head(channels) = a.rowwise().mean();
    pooled.tail(channels) = a.rowwise().maxCoeff();
    Vector bias = pool.weight * pooled + pool.bias;
    a.colwise() += bias;
  }
}

// A value-like head: 1x1 conv, flatten, relu(fc1), fc2; writes
// outputs x positions into out, position-major.
void DenseHead(const Head& head, const float* trunk, int positions, float* scratch, Matrix& hidden, float* out) {
  Conv1x1Relu(head.conv, trunk, positions, scratch);
  const int flat = int(head.fc1.weight.cols());
  auto h = hidden.topLeftCorner(head.fc1.weight.rows(), positions);
  h.noalias() = head.fc1.weight * ConstMatrixMap(scratch, flat, positions);
  h = (h.colwise() + head.fc1.bias).cwiseMax(0.0f);
  MatrixMap result(out, head.fc2.weight.rows(), positions);
  result.noalias() = head.fc2.weight * h;
  result.colwise() += head.fc2.bias;
}

}  // namespace

void EigenNet::Forward(const float* input, int count, float* policy, float* value, float* moves_left,
                       Workspace& ws) const {
  const Layers& l = *layers_;
  const int c = config_.channels, planes = config_.input_planes;
  for (int first = 0; first < count; first += kChunkPositions) {
    const int n = std::min(kChunkPositions, count - first), columns = n * kNumSquares;
    // NCHW planes -> [square][plane] columns.
    for (int i = 0; i < n; ++i)
      MatrixMap(ws.x.data() + std::size_t(i) * kNumSquares * planes, planes, kNumSquares) =
          Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
              input + std::size_t(first + i) * kInputSize, planes, kNumSquares);
    Conv3x3(l.stem, ws.x.data(), planes, n, ws.cols.data(), ws.y.data());
    MatrixMap trunk(ws.y.data(), c, columns), mid(ws.z.data(), c, columns);
    trunk = trunk.cwiseMax(0.0f);
    for (const Block& block : l.blocks) {
      Conv3x3(block.conv1, ws.y.data(), c, n, ws.cols.data(), ws.z.data());
      mid = mid.cwiseMax(0.0f);
      if (block.pooling) GlobalPoolingBias(block.pool, ws.z.data(), c, n);
      Conv3x3(block.conv2, ws.z.data(), c, n, ws.cols.data(), ws.x.data());
      trunk = (trunk + MatrixMap(ws.x.data(), c, columns)).cwiseMax(0.0f);
    }
    // Policy: 1x1 conv to 8 planes; position i's 8 x 64 column-major block
    // is its 512 logits in policy index order (square * 8 + direction).
    Conv1x1Relu(l.policy_conv, ws.y.data(), n, ws.head.data());
    MatrixMap logits(policy + std::size_t(first) * kPolicySize, kNumDirections, columns);
    logits.noalias() = l.policy_out.weight * ConstMatrixMap(ws.head.data(), config_.policy_channels, columns);
    logits.colwise() += l.policy_out.bias;
    DenseHead(l.value, ws.y.data(), n, ws.head.data(), ws.hidden, value + std::size_t(first) * 3);
    if (config_.moves_left)
      DenseHead(l.moves_left, ws.y.data(), n, ws.head.data(), ws.hidden, moves_left + first);
    else
      std::fill(moves_left + first, moves_left + first + n, 0.0f);
  }
}

// A workspace with the input and output buffers of one chunk.
struct EigenEvaluator::Slot {
  EigenNet::WorkspacePtr workspace;
  std::vector<float> input, policy, value, moves_left;
};

EigenEvaluator::EigenEvaluator(const ExportedNet& net, int threads) : net_(net), threads_(threads) {
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
