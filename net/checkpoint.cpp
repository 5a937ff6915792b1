#include "net/checkpoint.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/error.h"
#include "core/file_util.h"
#include "core/hash.h"

namespace loa {
namespace {

// Stored under "format"; anything else is not a checkpoint of ours.
constexpr char kCheckpointFormat[] = "loazero-checkpoint";
// Stored under "version": 2 keeps the model and optimizer archives as byte
// tensors beside their FNV-1a 64 checksums.
constexpr int64_t kCheckpointVersion = 2;

// Runs body, turning LibTorch's errors about the file into one loa::Error.
template <typename Body>
auto Guarded(const std::string& path, Body&& body) {
  try {
    return body();
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    throw Error(path + ": truncated or not a LOAZero checkpoint (" + what.substr(0, what.find('\n')) + ")");
  }
}

// Opens the archive in bytes with its tensors mapped to device.
torch::serialize::InputArchive OpenArchive(const std::string& path, const std::string& bytes, torch::Device device) {
  return Guarded(path, [&] {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size(), device);
    return archive;
  });
}

c10::IValue ReadValue(const std::string& path, torch::serialize::InputArchive& archive, const char* key) {
  c10::IValue value;
  if (!Guarded(path, [&] { return archive.try_read(key, value); }))
    throw Error(path + ": not a LOAZero checkpoint (no '" + key + "')");
  return value;
}

CheckpointInfo ReadInfo(const std::string& path, torch::serialize::InputArchive& archive) {
  CheckpointInfo info;
  c10::IValue format = ReadValue(path, archive, "format");
  if (!format.isString() || format.toStringRef() != kCheckpointFormat)
    throw Error(path + ": not a LOAZero checkpoint (format is not " + kCheckpointFormat + ")");
  c10::IValue version;
  if (!archive.try_read("version", version) || !version.isInt() || version.toInt() != kCheckpointVersion)
    throw Error(path + ": checkpoint version " + (version.isInt() ? std::to_string(version.toInt()) : "1") +
                ", this build reads version " + std::to_string(kCheckpointVersion));
  info.encoder_version = int(ReadValue(path, archive, "encoder_version").toInt());
  if (info.encoder_version != kEncoderVersion)
    throw Error(path + ": encoder version " + std::to_string(info.encoder_version) +
                ", but this build encodes version " + std::to_string(kEncoderVersion));
  try {
    info.config = NetConfig::FromJson(ReadValue(path, archive, "architecture").toStringRef());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  info.state.step = ReadValue(path, archive, "step").toInt();
  info.state.rules = ReadValue(path, archive, "rules").toStringRef();
  auto counters = nlohmann::json::parse(ReadValue(path, archive, "counters").toStringRef(), nullptr, false);
  if (counters.is_discarded() || !counters.is_object()) throw Error(path + ": malformed counters");
  for (auto it = counters.begin(); it != counters.end(); ++it)
    info.state.counters[it.key()] = it.value().get<int64_t>();
  info.has_optimizer = ReadValue(path, archive, "has_optimizer").toBool();
  // Checkpoints written before weight averaging have no such key.
  c10::IValue has_average;
  info.has_average = archive.try_read("has_average", has_average) && has_average.isBool() && has_average.toBool();
  return info;
}

// Writes an archive into the checkpoint as a byte tensor under key, and its
// checksum under key + "_checksum".
void WriteBlob(torch::serialize::OutputArchive& archive, const std::string& key,
               torch::serialize::OutputArchive& blob) {
  std::ostringstream out;
  blob.save_to(out);
  const std::string bytes = out.str();
  torch::Tensor tensor = torch::empty({int64_t(bytes.size())}, torch::kUInt8);
  std::memcpy(tensor.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  archive.write(key, tensor);
  archive.write(key + "_checksum", c10::IValue(int64_t(Fnv1a64(bytes))));
}

// Reads what WriteBlob wrote, checks its checksum and opens it on device.
torch::serialize::InputArchive ReadBlob(const std::string& path, torch::serialize::InputArchive& archive,
                                        const std::string& key, torch::Device device) {
  torch::Tensor tensor;
  if (!Guarded(path, [&] { return archive.try_read(key, tensor); }))
    throw Error(path + ": not a LOAZero checkpoint (no '" + key + "')");
  const c10::IValue checksum = ReadValue(path, archive, (key + "_checksum").c_str());
  tensor = tensor.contiguous();
  const std::string_view bytes(reinterpret_cast<const char*>(tensor.data_ptr<uint8_t>()), size_t(tensor.numel()));
  if (tensor.scalar_type() != torch::kUInt8 || !checksum.isInt() || int64_t(Fnv1a64(bytes)) != checksum.toInt())
    throw Error(path + ": corrupt checkpoint (the checksum of its " + key + " does not match)");
  const std::string copy(bytes);
  return OpenArchive(path, copy, device);
}

// Throws Error naming path and the tensor when the model holds a NaN or an
// infinity.
void CheckFinite(const std::string& path, LoaNet& model) {
  torch::NoGradGuard no_grad;
  for (const auto& item : model->named_parameters())
    if (!torch::isfinite(item.value()).all().item<bool>())
      throw Error(path + ": tensor " + item.key() + " holds a non-finite value (NaN or infinity)");
  for (const auto& item : model->named_buffers())
    if (item.value().is_floating_point() && !torch::isfinite(item.value()).all().item<bool>())
      throw Error(path + ": tensor " + item.key() + " holds a non-finite value (NaN or infinity)");
}

}  // namespace

void SaveCheckpoint(const std::string& path, LoaNet& model, torch::optim::Optimizer* optimizer,
                    const TrainingState& state, LoaNet* average) {
  torch::serialize::OutputArchive archive;
  CheckFinite(path, model);
  if (average) {
    if ((*average)->config() != model->config())
      throw Error(path + ": the weight average's architecture differs from the model's");
    CheckFinite(path, *average);
  }
  archive.write("format", c10::IValue(std::string(kCheckpointFormat)));
  archive.write("version", c10::IValue(kCheckpointVersion));
  archive.write("encoder_version", c10::IValue(int64_t(kEncoderVersion)));
  archive.write("architecture", c10::IValue(model->config().ToJson()));
  archive.write("step", c10::IValue(state.step));
  archive.write("rules", c10::IValue(state.rules));
  archive.write("counters", c10::IValue(nlohmann::json(state.counters).dump()));
  archive.write("has_optimizer", c10::IValue(optimizer != nullptr));
  archive.write("has_average", c10::IValue(average != nullptr));
  torch::serialize::OutputArchive model_archive;
  model->save(model_archive);
  WriteBlob(archive, "model", model_archive);
  if (average) {
    torch::serialize::OutputArchive average_archive;
    (*average)->save(average_archive);
    WriteBlob(archive, "average", average_archive);
  }
  if (optimizer) {
    torch::serialize::OutputArchive optimizer_archive;
    optimizer->save(optimizer_archive);
    WriteBlob(archive, "optimizer", optimizer_archive);
  }
  std::ostringstream bytes;
  archive.save_to(bytes);
  WriteFileAtomic(path, bytes.str(), Existing::kKeep);
}

CheckpointInfo ReadCheckpointInfo(const std::string& path) {
  std::string bytes = ReadFile(path);
  torch::serialize::InputArchive archive = OpenArchive(path, bytes, torch::kCPU);
  return Guarded(path, [&] { return ReadInfo(path, archive); });
}

TrainingState LoadCheckpoint(const std::string& path, LoaNet& model, torch::optim::Optimizer* optimizer,
                             LoaNet* average) {
  std::string bytes = ReadFile(path);
  const torch::Device device = model->parameters().front().device();
  torch::serialize::InputArchive archive = OpenArchive(path, bytes, device);
  CheckpointInfo info = Guarded(path, [&] { return ReadInfo(path, archive); });
  if (info.config != model->config())
    throw Error(path + ": architecture " + info.config.ToJson() + " differs from the model's " +
                model->config().ToJson());
  if (optimizer && !info.has_optimizer) throw Error(path + ": holds no optimizer state");
  torch::serialize::InputArchive model_archive = ReadBlob(path, archive, "model", device);
  // The optimizer state's checksum is checked even when only the model is
  // wanted: a damaged file is refused whatever reads it.
  std::optional<torch::serialize::InputArchive> optimizer_archive, average_archive;
  if (info.has_optimizer) optimizer_archive = ReadBlob(path, archive, "optimizer", device);
  if (info.has_average) average_archive = ReadBlob(path, archive, "average", device);
  if (average && (*average)->config() != model->config())
    throw Error(path + ": the weight average's model differs from the model's architecture");
  Guarded(path, [&] {
    model->load(model_archive);
    model->to(device);
    if (optimizer) optimizer->load(*optimizer_archive);
    if (average) {
      (*average)->to(device);
      if (average_archive)
        (*average)->load(*average_archive);
      else
        CopyWeights(model, *average);
    }
    return 0;
  });
  CheckFinite(path, model);
  if (average) CheckFinite(path, *average);
  return info.state;
}

LoaNet LoadModel(const std::string& path, TrainingState* state) {
  const CheckpointInfo info = ReadCheckpointInfo(path);
  LoaNet model(info.config);
  TrainingState loaded;
  if (info.has_average) {
    LoaNet trained(info.config);
    loaded = LoadCheckpoint(path, trained, nullptr, &model);
  } else {
    loaded = LoadCheckpoint(path, model, nullptr);
  }
  model->eval();
  if (state) *state = loaded;
  return model;
}

ExportedNet ExportCheckpoint(const std::string& path) {
  TrainingState state;
  LoaNet model = LoadModel(path, &state);
  ExportedNet net = ToExport(model, state.rules, state.step);
  net.source = path;
  return net;
}

namespace {

LoaNet NewModel(const NetConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  LoaNet model(config);
  model->eval();
  return model;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ExportedNet NewNet(const NetConfig& config, uint64_t seed, const std::string& rules) {
  LoaNet model = NewModel(config, seed);
  return ToExport(model, rules, 0);
}

void WriteNewNet(const std::string& path, const NetConfig& config, uint64_t seed, const std::string& rules) {
  LoaNet model = NewModel(config, seed);
  if (EndsWith(path, ".pt"))
    SaveCheckpoint(path, model, nullptr, TrainingState{0, {}, rules});
  else
    WriteExport(path, ToExport(model, rules, 0));
}

}  // namespace loa
