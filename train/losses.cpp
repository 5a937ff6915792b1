#include "train/losses.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "net/encoder.h"
#include "train/training_targets.h"

namespace loa::train {
namespace {

// While it lives, this thread's forward passes on `device` run their
// convolutions and linear layers in bfloat16 (PyTorch's autocast, as
// `torch.autocast(device_type, torch.bfloat16)` does); the state before is
// restored, and the autocast's cast weights are dropped, when it ends.
class Bf16Autocast {
 public:
  explicit Bf16Autocast(torch::Device device) : type_(device.type()) {
    was_enabled_ = Enabled(type_);
    was_dtype_ = Dtype(type_);
    Set(type_, true, at::kBFloat16);
    at::autocast::increment_nesting();
  }
  ~Bf16Autocast() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    Set(type_, was_enabled_, was_dtype_);
  }
  Bf16Autocast(const Bf16Autocast&) = delete;
  Bf16Autocast& operator=(const Bf16Autocast&) = delete;

 private:
  // LibTorch 2.4 replaced the per-device calls by calls that take the device.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  static bool Enabled(c10::DeviceType t) { return at::autocast::is_autocast_enabled(t); }
  static at::ScalarType Dtype(c10::DeviceType t) { return at::autocast::get_autocast_dtype(t); }
  static void Set(c10::DeviceType t, bool enabled, at::ScalarType dtype) {
    at::autocast::set_autocast_dtype(t, dtype);
    at::autocast::set_autocast_enabled(t, enabled);
  }
#else
  static bool Enabled(c10::DeviceType t) {
    return t == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
  }
  static at::ScalarType Dtype(c10::DeviceType t) {
    return t == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
  }
  static void Set(c10::DeviceType t, bool enabled, at::ScalarType dtype) {
    if (t == c10::DeviceType::CUDA) {
      at::autocast::set_autocast_gpu_dtype(dtype);
      at::autocast::set_enabled(enabled);
    } else {
      at::autocast::set_autocast_cpu_dtype(dtype);
      at::autocast::set_cpu_enabled(enabled);
    }
  }
#endif

  c10::DeviceType type_;
  bool was_enabled_ = false;
  at::ScalarType was_dtype_ = at::kFloat;
};

// The net's outputs for a batch in train.precision, as float32.
NetOutput Forward(LoaNet& model, const torch::Tensor& input, const run::TrainConfig& c, torch::Device device) {
  if (c.precision != "bf16") return model->forward(input);
  NetOutput out;
  {
    const Bf16Autocast bf16(device);
    out = model->forward(input);
  }
  for (torch::Tensor* t : {&out.policy, &out.value, &out.moves_left})
    if (t->defined()) *t = t->to(torch::kFloat32);
  for (torch::Tensor& t : out.heads)
    if (t.defined()) t = t.to(torch::kFloat32);
  return out;
}

}  // namespace

Losses ComputeLosses(LoaNet& model, const Batch& b, const run::TrainConfig& c, double q_weight, torch::Device device) {
  auto tensor = [&](const std::vector<float>& data, std::vector<int64_t> shape) {
    return torch::from_blob(const_cast<float*>(data.data()), shape, torch::kFloat32).to(device);
  };
  const int64_t n = b.size;
  const NetOutput out = Forward(model, tensor(b.planes, {n, NumInputPlanes(b.features), 8, 8}), c, device);
  const torch::Tensor legal_mask = tensor(b.legal_mask, {n, kPolicySize});
  const torch::Tensor log_policy = torch::log_softmax(out.policy + legal_mask, 1);
  // The mean over the rows with a policy target (a tree proof has none).
  const torch::Tensor policy_target = tensor(b.policy, {n, kPolicySize});
  const torch::Tensor policy_loss = -(policy_target * log_policy).sum() / policy_target.sum().clamp_min(1);
  const torch::Tensor wdl = tensor(b.wdl, {n, 3});
  torch::Tensor value_target = wdl;
  if (q_weight > 0) {
    const torch::Tensor q = tensor(b.root_value, {n, 1});
    const torch::Tensor q_wdl = torch::cat({(1 + q) / 2, torch::zeros_like(q), (1 - q) / 2}, 1);
    value_target = (1 - q_weight) * wdl + q_weight * q_wdl;
  }
  const torch::Tensor value_loss = -(value_target * torch::log_softmax(out.value, 1)).sum(1).mean();
  torch::Tensor total = c.policy_weight * policy_loss + c.value_weight * value_loss;
  Losses l;
  if (out.moves_left.defined()) {
    const torch::Tensor ml = torch::smooth_l1_loss(out.moves_left.view({n}), tensor(b.moves_left, {n}));
    total = total + c.moves_left_weight * ml;
    l.moves_left = ml.item<double>();
  }
  for (int h = 0; h < kNumTrainingHeads; ++h) {
    if (!out.heads[h].defined()) continue;
    const torch::Tensor targets = tensor(b.head_targets[h], {n, HeadFloats(kTrainingHeads[h])});
    const torch::Tensor weight = tensor(b.head_weights[h], {n});
    const torch::Tensor per_row = TrainingTargets()[h].loss(out.heads[h], targets, legal_mask);
    const torch::Tensor head = (per_row * weight).sum() / weight.sum().clamp_min(1);
    total = total + c.head_weights[h] * head;
    l.heads[h] = head.item<double>();
  }
  torch::NoGradGuard no_grad;
  l.total = total;
  l.policy = policy_loss.item<double>();
  l.value = value_loss.item<double>();
  l.entropy = -(log_policy.exp() * log_policy).sum(1).mean().item<double>();
  l.value_accuracy = (out.value.argmax(1) == wdl.argmax(1)).to(torch::kFloat32).mean().item<double>();
  return l;
}

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const run::TrainConfig& c, LoaNet& model) {
  if (c.optimizer == "adamw") {
    return std::make_unique<torch::optim::AdamW>(
        model->parameters(), torch::optim::AdamWOptions(c.learning_rate).weight_decay(c.weight_decay));
  }
  // SGD's weight decay adds weight_decay * w to the gradient: AlphaZero's L2 term.
  return std::make_unique<torch::optim::SGD>(
      model->parameters(), torch::optim::SGDOptions(c.learning_rate).momentum(c.momentum).weight_decay(c.weight_decay));
}

}  // namespace loa::train
