#include "net/model.h"

#include "core/error.h"
#include "net/encoder.h"

namespace loa {
namespace {

namespace nn = torch::nn;

nn::Conv2d Conv(int in, int out, int kernel, bool bias) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(bias));
}

nn::BatchNorm2d BatchNorm(int channels) {
  return nn::BatchNorm2d(nn::BatchNorm2dOptions(channels).eps(kBatchNormEpsilon));
}

// Whether a tensor of the model goes into exports: not the batch counters,
// not the training-only heads.
bool IsExported(const std::string& name) {
  if (name.find("num_batches_tracked") != std::string::npos) return false;
  for (const TrainingHeadRow& head : kTrainingHeads)
    if (name.rfind(std::string(head.name) + ".", 0) == 0) return false;
  return true;
}

// [N, 8 directions, 64 squares] -> [N, 64, 8] -> policy index s * 8 + d.
torch::Tensor PolicyLogits(const torch::Tensor& head) {
  return head.transpose(1, 2).reshape({head.size(0), kPolicySize});
}

}  // namespace

ConvBnImpl::ConvBnImpl(int in, int out, int kernel) {
  conv_ = register_module("conv", Conv(in, out, kernel, false));
  bn_ = register_module("bn", BatchNorm(out));
}

torch::Tensor ConvBnImpl::forward(const torch::Tensor& x) { return bn_(conv_(x)); }

ResidualBlockImpl::ResidualBlockImpl(int channels, bool pooling) {
  conv1_ = register_module("conv1", Conv(channels, channels, 3, false));
  bn1_ = register_module("bn1", BatchNorm(channels));
  if (pooling) pool_ = register_module("pool", nn::Linear(2 * channels, channels));
  conv2_ = register_module("conv2", Conv(channels, channels, 3, false));
  bn2_ = register_module("bn2", BatchNorm(channels));
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = torch::relu(bn1_(conv1_(x)));
  if (pool_) {
    torch::Tensor pooled = torch::cat({y.mean({2, 3}), y.amax({2, 3})}, 1);
    y = y + pool_(pooled).unsqueeze(-1).unsqueeze(-1);
  }
  return torch::relu(bn2_(conv2_(y)) + x);
}

ConvHeadImpl::ConvHeadImpl(int channels, int hidden, int outputs) {
  conv_ = register_module("conv", Conv(channels, hidden, 1, false));
  bn_ = register_module("bn", BatchNorm(hidden));
  out_ = register_module("out", Conv(hidden, outputs, 1, true));
}

torch::Tensor ConvHeadImpl::forward(const torch::Tensor& trunk) {
  return out_(torch::relu(bn_(conv_(trunk)))).flatten(2);  // [N, outputs, 64]
}

DenseHeadImpl::DenseHeadImpl(int channels, int head_channels, int hidden, int outputs) {
  conv_ = register_module("conv", Conv(channels, head_channels, 1, false));
  bn_ = register_module("bn", BatchNorm(head_channels));
  fc1_ = register_module("fc1", nn::Linear(head_channels * kNumSquares, hidden));
  fc2_ = register_module("fc2", nn::Linear(hidden, outputs));
}

torch::Tensor DenseHeadImpl::forward(const torch::Tensor& trunk) {
  torch::Tensor x = torch::relu(bn_(conv_(trunk))).flatten(1);
  return fc2_(torch::relu(fc1_(x)));
}

LoaNetImpl::LoaNetImpl(const NetConfig& config) : config_(config) {
  config_.Validate();
  const int c = config_.channels;
  stem_ = register_module("stem", ConvBn(config_.input_planes(), c, 3));
  blocks_ = register_module("blocks", nn::ModuleList());
  for (int b = 0; b < config_.blocks; ++b) blocks_->push_back(ResidualBlock(c, config_.HasGlobalPooling(b)));
  policy_ = register_module("policy", ConvHead(c, config_.policy_channels, kNumDirections));
  value_ = register_module("value", DenseHead(c, config_.value_channels, config_.value_hidden, 3));
  if (config_.moves_left)
    moves_left_ =
        register_module("moves_left", DenseHead(c, config_.moves_left_channels, config_.moves_left_hidden, 1));
  for (int h = 0; h < kNumTrainingHeads; ++h)
    if (config_.head_channels[h] > 0)
      heads_[h] =
          register_module(kTrainingHeads[h].name, ConvHead(c, config_.head_channels[h], kTrainingHeads[h].outputs));
}

NetOutput LoaNetImpl::forward(const torch::Tensor& input) {
  torch::Tensor x = torch::relu(stem_(input));
  for (const auto& block : *blocks_) x = block->as<ResidualBlock>()->forward(x);
  NetOutput out;
  out.policy = PolicyLogits(policy_(x));
  out.value = value_(x);
  if (moves_left_) out.moves_left = moves_left_(x).squeeze(1);
  for (int h = 0; h < kNumTrainingHeads; ++h) {
    if (!heads_[h]) continue;
    out.heads[h] = heads_[h](x);
    if (kTrainingHeads[h].shape == HeadShape::kPolicy) out.heads[h] = PolicyLogits(out.heads[h]);
  }
  return out;
}

ExportedNet ToExport(LoaNet& model, const std::string& rules, int64_t step) {
  torch::NoGradGuard no_grad;
  ExportedNet net;
  net.config = model->config().Exported();
  net.rules = rules;
  net.step = step;
  net.source = "model";
  auto add = [&](const std::string& name, const torch::Tensor& tensor) {
    if (!IsExported(name)) return;
    torch::Tensor t = tensor.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    HostTensor host;
    host.shape.assign(t.sizes().begin(), t.sizes().end());
    host.data.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    net.tensors[name] = std::move(host);
  };
  for (const auto& item : model->named_parameters()) add(item.key(), item.value());
  for (const auto& item : model->named_buffers()) add(item.key(), item.value());
  return net;
}

namespace {

// Calls f(average's tensor, model's tensor) for every parameter and buffer,
// paired by name.
template <typename F>
void ForEachPair(LoaNet& a, LoaNet& b, F&& f) {
  torch::NoGradGuard no_grad;
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& item : pa) f(item.value(), pb[item.key()]);
  auto ba = a->named_buffers(), bb = b->named_buffers();
  for (const auto& item : ba) f(item.value(), bb[item.key()]);
}

}  // namespace

void CopyWeights(LoaNet& from, LoaNet& to) {
  ForEachPair(to, from, [](torch::Tensor dst, const torch::Tensor& src) { dst.copy_(src); });
}

void GrowInto(LoaNet& from, LoaNet& to) {
  const NetConfig& small = from->config();
  if (!CanGrowInto(small, to->config()))
    throw Error("cannot grow " + small.ToJson() + " into " + to->config().ToJson() +
                ": only the block count and the channels may change, and only upwards");
  torch::NoGradGuard no_grad;
  const int old_channels = small.channels, new_channels = to->config().channels;
  auto block_of = [](const std::string& name) {  // "blocks.K.<layer>": K, else -1
    if (name.rfind("blocks.", 0) != 0) return -1;
    return std::stoi(name.substr(7, name.find('.', 7) - 7));
  };
  auto grow = [&](const std::string& name, torch::Tensor& tensor, const torch::Tensor& source) {
    if (block_of(name) >= small.blocks) {  // a new block: adds nothing to its input
      if (name.find(".bn2.weight") != std::string::npos || name.find(".bn2.bias") != std::string::npos) tensor.zero_();
      return;
    }
    if (tensor.dim() == 0 || tensor.sizes() == source.sizes()) {
      tensor.copy_(source);
      return;
    }
    // A wider tensor: dimension 0 is its outputs, dimension 1 (where there
    // is one) its inputs; the old outputs never read a new input.
    const int64_t old_out = source.size(0);
    if (name.find(".pool.weight") != std::string::npos) {
      // [C, 2C] -> [C', 2C']: the means of the old channels, then their maxima.
      for (int half = 0; half < 2; ++half) {
        torch::Tensor dst = tensor.narrow(0, 0, old_out).narrow(1, half * new_channels, new_channels);
        dst.narrow(1, old_channels, new_channels - old_channels).zero_();
        dst.narrow(1, 0, old_channels).copy_(source.narrow(1, half * old_channels, old_channels));
      }
      return;
    }
    torch::Tensor dst = tensor.narrow(0, 0, old_out);
    if (tensor.dim() >= 2) {
      const int64_t old_in = source.size(1);
      dst.narrow(1, old_in, tensor.size(1) - old_in).zero_();
      dst = dst.narrow(1, 0, old_in);
    }
    dst.copy_(source);
  };
  auto source_params = from->named_parameters(), source_buffers = from->named_buffers();
  for (auto& item : to->named_parameters())
    grow(item.key(), item.value(), block_of(item.key()) >= small.blocks ? torch::Tensor() : source_params[item.key()]);
  for (auto& item : to->named_buffers())
    grow(item.key(), item.value(), block_of(item.key()) >= small.blocks ? torch::Tensor() : source_buffers[item.key()]);
}

void UpdateAverage(LoaNet& average, LoaNet& model, double keep) {
  ForEachPair(average, model, [keep](torch::Tensor avg, const torch::Tensor& value) {
    if (avg.is_floating_point())
      avg.mul_(keep).add_(value, 1.0 - keep);
    else
      avg.copy_(value);
  });
}

void LoadExportInto(const ExportedNet& net, LoaNet& model) {
  if (net.config != model->config().Exported())
    throw Error(net.source + ": architecture " + net.config.ToJson() + " differs from the model's " +
                model->config().ToJson());
  CheckTensors(net);
  torch::NoGradGuard no_grad;
  auto load = [&](const std::string& name, torch::Tensor& tensor) {
    if (!IsExported(name)) return;
    const HostTensor& host = net.Get(name);
    torch::Tensor source = torch::from_blob(const_cast<float*>(host.data.data()), tensor.sizes(), torch::kFloat32);
    tensor.copy_(source);
  };
  for (auto& item : model->named_parameters()) load(item.key(), item.value());
  for (auto& item : model->named_buffers()) load(item.key(), item.value());
}

NetOutput InferenceHeadsOnCpu(const NetOutput& out, int64_t rows) {
  NetOutput cpu;
  cpu.policy = out.policy.to(torch::kCPU, torch::kFloat32).contiguous();
  cpu.value = out.value.to(torch::kCPU, torch::kFloat32).contiguous();
  cpu.moves_left = out.moves_left.defined() ? out.moves_left.to(torch::kCPU, torch::kFloat32).contiguous()
                                            : torch::zeros({rows}, torch::kFloat32);
  return cpu;
}

}  // namespace loa
