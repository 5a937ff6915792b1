// The LibTorch model, checkpoints, the LibTorch evaluator, and the cpu
// evaluator against LibTorch.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "net/backends.h"
#include "net/checkpoint.h"
#include "net/cpu_evaluator.h"
#include "net/cuda_graphs.h"
#include "net/model.h"
#include "net/net_evaluator.h"
#include "net/torch_evaluator.h"
#include "tests/net/encode_batch.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

using testing::ExpectSame;
using testing::RandomExport;
using testing::SmallConfig;

// Returns a fresh path in the test's temporary folder (nothing there yet:
// checkpoints are never written over a file).
std::string TempPath(const std::string& name) {
  const std::string path = ::testing::TempDir() + "loaz_torch_" + name;
  std::remove(path.c_str());
  return path;
}

LoaNet ModelOf(const ExportedNet& net) {
  LoaNet model(net.config);
  LoadExportInto(net, model);
  model->eval();
  return model;
}

TEST(ModelTest, TensorNamesAndShapesMatchTheLayout) {
  for (const NetConfig& config : {SmallConfig(3, 16, 2, true), SmallConfig(2, 8, 0, false), NetConfig()}) {
    LoaNet model(config);
    ExportedNet net = ToExport(model, "simultaneous=draw", 0);
    auto layout = TensorLayout(config);
    ASSERT_EQ(net.tensors.size(), layout.size()) << config.ToJson();
    for (const auto& [name, shape] : layout) EXPECT_EQ(net.Get(name).shape, shape) << name;
  }
}

TEST(ModelTest, ForwardShapes) {
  LoaNet model(SmallConfig(2, 8, 1, true));
  std::vector<Position> positions = RandomPositions(5, 1);
  NetOutput out = model->forward(testing::EncodeBatch(positions.data(), 5));
  EXPECT_EQ(out.policy.sizes(), (std::vector<int64_t>{5, kPolicySize}));
  EXPECT_EQ(out.value.sizes(), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(out.moves_left.sizes(), (std::vector<int64_t>{5}));
  LoaNet no_moves_left(SmallConfig(1, 8, 0, false));
  EXPECT_FALSE(no_moves_left->forward(testing::EncodeBatch(positions.data(), 5)).moves_left.defined());
}

TEST(ModelTest, PolicyLogitsAreInPolicyIndexOrder) {
  // With a zero 1x1 output convolution, logit s * 8 + d is the bias of
  // direction d, whatever the square.
  ExportedNet net = RandomExport(SmallConfig(1, 8, 0, false), 1);
  for (float& w : net.tensors["policy.out.weight"].data) w = 0;
  for (int d = 0; d < kNumDirections; ++d) net.tensors["policy.out.bias"].data[d] = float(d);
  LoaNet model = ModelOf(net);
  Position start = Position::Start();
  torch::Tensor policy = model->forward(testing::EncodeBatch(&start, 1)).policy;
  for (int i = 0; i < kPolicySize; ++i) ASSERT_EQ(policy[0][i].item<float>(), float(PolicyDirection(i)));
}

// Returns the largest |a - b| / max(1, |b|) over two tensors' values.
double RelativeError(const float* a, const float* b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / std::max(1.0, std::abs(double(b[i]))));
  return worst;
}

TEST(CpuEvaluatorTest, MatchesLibTorchOnRandomNets) {
  NetConfig connection = SmallConfig(2, 16, 1, true), threat = SmallConfig(2, 8, 1, true);
  connection.input_features = "connection";
  threat.input_features = "threat";
  const NetConfig configs[] = {SmallConfig(3, 16, 2, true),
                               SmallConfig(2, 8, 0, false),
                               SmallConfig(1, 24, 1, true),
                               NetConfig(),
                               connection,
                               threat};
  uint32_t seed = 10;
  for (const NetConfig& config : configs) {
    ExportedNet net = RandomExport(config, seed++);
    LoaNet model = ModelOf(net);
    CpuNet cpu(net);
    auto workspace = cpu.NewWorkspace();
    for (int count : {1, 7, 40}) {
      std::vector<Position> positions = RandomPositions(count, seed++);
      torch::Tensor input = testing::EncodeBatch(positions.data(), count, config.features());
      NetOutput expected = model->forward(input);
      std::vector<float> policy(count * kPolicySize), value(count * 3), moves_left(count);
      cpu.Forward(input.data_ptr<float>(), count, policy.data(), value.data(), moves_left.data(), *workspace);
      SCOPED_TRACE(config.ToJson() + " batch " + std::to_string(count));
      EXPECT_LT(RelativeError(policy.data(), expected.policy.contiguous().data_ptr<float>(), count * kPolicySize),
                1e-4);
      EXPECT_LT(RelativeError(value.data(), expected.value.contiguous().data_ptr<float>(), count * 3), 1e-4);
      if (config.moves_left) {
        EXPECT_LT(RelativeError(moves_left.data(), expected.moves_left.contiguous().data_ptr<float>(), count), 1e-4);
      }
    }
  }
}

void ConcurrentCallersAgreeWithTheCpuBackend(const ExportedNet& net, NetEvaluatorOptions options);

TEST(TorchEvaluatorTest, ConcurrentCallersShareBatchesAndAgreeWithTheCpuBackend) {
  NetConfig connection = SmallConfig(2, 16, 2, true), threat = SmallConfig(2, 16, 2, true);
  connection.input_features = "connection";
  threat.input_features = "threat";
  for (const NetConfig& config : {SmallConfig(2, 16, 2, true), connection, threat}) {
    SCOPED_TRACE(config.input_features);
    ConcurrentCallersAgreeWithTheCpuBackend(RandomExport(config, 20), NetEvaluatorOptions());
  }
}

// Several forward passes in flight (as on cuda) and the channels-last
// layout give every caller the answers of one pass at a time.
TEST(TorchEvaluatorTest, BatchesInFlightAndChannelsLastAgreeWithTheCpuBackend) {
  NetConfig config = SmallConfig(2, 16, 2, true);
  config.input_features = "connection";
  for (int in_flight : {2, 3})
    for (bool channels_last : {false, true}) {
      SCOPED_TRACE(std::to_string(in_flight) + (channels_last ? " nhwc" : " nchw"));
      NetEvaluatorOptions options;
      options.batches_in_flight = in_flight;
      options.channels_last = channels_last;
      ConcurrentCallersAgreeWithTheCpuBackend(RandomExport(config, 22), options);
    }
}

TEST(TorchEvaluatorTest, CudaBatchesArePaddedToFewShapes) {
  EXPECT_EQ(CudaPaddedBatch(1), 1);
  EXPECT_EQ(CudaPaddedBatch(3), 4);
  EXPECT_EQ(CudaPaddedBatch(33), 64);
  EXPECT_EQ(CudaPaddedBatch(64), 64);
  EXPECT_EQ(CudaPaddedBatch(65), 128);
  EXPECT_EQ(CudaPaddedBatch(1000), 1024);
  std::set<int> shapes;
  for (int n = 1; n <= 1024; ++n) {
    const int rows = CudaPaddedBatch(n);
    EXPECT_GE(rows, n);
    EXPECT_LT(rows - n, 64);
    shapes.insert(rows);
  }
  EXPECT_EQ(shapes.size(), 22u);  // 1, 2, ..., 64 and 128, 192, ..., 1024
}

void ConcurrentCallersAgreeWithTheCpuBackend(const ExportedNet& net, NetEvaluatorOptions options) {
  options.batch_wait_us = 2000;
  TorchEvaluator torch_evaluator(net, options);
  CpuEvaluator cpu_evaluator(net, 1);
  std::vector<Position> positions = RandomPositions(24, 20);
  std::vector<EvalOutput> expected(positions.size());
  cpu_evaluator.Evaluate(positions.data(), int(positions.size()), expected.data());

  const int kThreads = 4;
  std::vector<std::vector<EvalOutput>> results(kThreads, std::vector<EvalOutput>(positions.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < positions.size(); ++i) torch_evaluator.Evaluate(&positions[i], 1, &results[t][i]);
    });
  for (auto& t : threads) t.join();
  for (const auto& result : results)
    for (std::size_t i = 0; i < positions.size(); ++i) ExpectSame(result[i], expected[i], 1e-4f);
  long passes, evaluated;
  torch_evaluator.Counters(&passes, &evaluated);
  EXPECT_EQ(evaluated, long(kThreads * positions.size()));
  EXPECT_LE(passes, evaluated);
}

// Evaluates positions, all in one call, with a and with b, and expects the
// same outputs within tolerance.
void ExpectAgree(Evaluator& a, Evaluator& b, const std::vector<Position>& positions, float tolerance) {
  std::vector<EvalOutput> from_a(positions.size()), from_b(positions.size());
  a.Evaluate(positions.data(), int(positions.size()), from_a.data());
  b.Evaluate(positions.data(), int(positions.size()), from_b.data());
  for (std::size_t i = 0; i < positions.size(); ++i) ExpectSame(from_a[i], from_b[i], tolerance);
}

TEST(TorchEvaluatorTest, SplitsCallsLargerThanMaxBatch) {
  ExportedNet net = RandomExport(SmallConfig(1, 8, 0, true), 21);
  NetEvaluatorOptions options;
  options.max_batch = 4;
  TorchEvaluator torch_evaluator(net, options);
  CpuEvaluator cpu_evaluator(net, 1);
  ExpectAgree(torch_evaluator, cpu_evaluator, RandomPositions(10, 21), 1e-4f);
  long passes, evaluated;
  torch_evaluator.Counters(&passes, &evaluated);
  EXPECT_EQ(passes, 3);
  EXPECT_THROW(ResolveDevice("tpu"), Error);
}

// CUDA graphs are a cuda matter: on the cpu the option changes nothing.
TEST(TorchEvaluatorTest, CudaGraphsOnlyOnCuda) {
  ExportedNet net = RandomExport(SmallConfig(1, 8, 0, true), 22);
  NetEvaluatorOptions options;
  options.cuda_graphs = true;
  TorchEvaluator torch_evaluator(net, options);
  EXPECT_EQ(torch_evaluator.graph_shapes(), 0);
  CpuEvaluator cpu_evaluator(net, 1);
  ExpectAgree(torch_evaluator, cpu_evaluator, RandomPositions(5, 22), 1e-4f);
}

// Where a GPU and a build with graphs are at hand: every padded shape is
// captured, and replayed passes agree with eager ones at every batch size.
TEST(TorchEvaluatorTest, CudaGraphsAgreeWithEagerPasses) {
  if (!torch::cuda::is_available() || !CudaGraphsBuilt()) GTEST_SKIP() << "no GPU, or a build without cuda graphs";
  ExportedNet net = RandomExport(SmallConfig(2, 16, 0, true), 23);
  NetEvaluatorOptions options;
  options.device = "cuda";
  options.precision = "fp32";
  options.max_batch = 100;
  options.cuda_graphs = true;
  TorchEvaluator graphs(net, options);
  options.cuda_graphs = false;
  TorchEvaluator eager(net, options);
  EXPECT_EQ(graphs.graph_shapes(), 8);  // 1, 2, 4, ..., 64, 128
  EXPECT_EQ(eager.graph_shapes(), 0);
  for (int n : {1, 3, 64, 65, 100}) ExpectAgree(graphs, eager, RandomPositions(n, 23), 1e-3f);
}

// Takes one Adam step on a fixed batch.
void TrainStep(LoaNet& model, torch::optim::Optimizer& optimizer, const torch::Tensor& input) {
  model->train();
  optimizer.zero_grad();
  NetOutput out = model->forward(input);
  torch::Tensor loss = out.policy.pow(2).mean() + out.value.pow(2).mean() + out.moves_left.pow(2).mean();
  loss.backward();
  optimizer.step();
}

TEST(CheckpointTest, RoundTripWithOptimizer) {
  torch::manual_seed(1);
  NetConfig config = SmallConfig(2, 8, 2, true);
  std::vector<Position> positions = RandomPositions(8, 30);
  torch::Tensor input = testing::EncodeBatch(positions.data(), 8);
  LoaNet model(config);
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-3));
  TrainStep(model, adam, input);
  TrainingState state{7, {{"games", 3}, {"samples", 1000}}, "simultaneous=draw start=standard max_plies=0"};
  std::string path = TempPath("round_trip.pt");
  SaveCheckpoint(path, model, &adam, state);

  CheckpointInfo info = ReadCheckpointInfo(path);
  EXPECT_EQ(info.config, config);
  EXPECT_EQ(info.encoder_version, kEncoderVersion);
  EXPECT_TRUE(info.has_optimizer);
  EXPECT_EQ(info.state.counters, state.counters);

  torch::manual_seed(2);
  LoaNet loaded(config);
  torch::optim::Adam loaded_adam(loaded->parameters(), torch::optim::AdamOptions(1e-3));
  TrainingState loaded_state = LoadCheckpoint(path, loaded, &loaded_adam);
  EXPECT_EQ(loaded_state.step, 7);
  EXPECT_EQ(loaded_state.rules, state.rules);
  EXPECT_EQ(loaded_state.counters, state.counters);
  // Same weights, statistics and optimizer moments: the next step agrees.
  TrainStep(model, adam, input);
  TrainStep(loaded, loaded_adam, input);
  auto a = model->named_parameters(), b = loaded->named_parameters();
  for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();
  auto ba = model->named_buffers(), bb = loaded->named_buffers();
  for (const auto& item : ba) EXPECT_TRUE(torch::equal(item.value(), bb[item.key()])) << item.key();
}

// Returns whether every parameter and buffer of a and b is equal.
bool SameWeights(LoaNet& a, LoaNet& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& item : pa)
    if (!torch::equal(item.value(), pb[item.key()])) return false;
  auto ba = a->named_buffers(), bb = b->named_buffers();
  for (const auto& item : ba)
    if (!torch::equal(item.value(), bb[item.key()])) return false;
  return true;
}

TEST(WeightAverageTest, MovesEachTensorByItsShare) {
  torch::manual_seed(3);
  NetConfig config = SmallConfig(1, 8, 0, true);
  LoaNet average(config), model(config);
  torch::manual_seed(4);
  LoaNet other(config);
  CopyWeights(other, model);
  EXPECT_TRUE(SameWeights(other, model));
  const torch::Tensor before = average->named_parameters()["stem.conv.weight"].clone();
  const torch::Tensor target = model->named_parameters()["stem.conv.weight"].clone();
  UpdateAverage(average, model, 0.75);
  EXPECT_TRUE(torch::allclose(average->named_parameters()["stem.conv.weight"], 0.75 * before + 0.25 * target));
  // Averaging towards itself changes nothing; keep = 0 copies.
  UpdateAverage(average, model, 0.0);
  EXPECT_TRUE(SameWeights(average, model));
}

// A grown net's outputs are the smaller net's, in eval mode and in
// training mode (batch statistics), every head included.
void ExpectSameOutputs(LoaNet& small, LoaNet& grown, const torch::Tensor& input, const std::string& what) {
  for (bool training : {false, true}) {
    small->train(training);
    grown->train(training);
    torch::NoGradGuard no_grad;
    const NetOutput a = small->forward(input), b = grown->forward(input);
    const std::string where = what + (training ? ", training" : ", eval");
    EXPECT_TRUE(torch::allclose(a.policy, b.policy, 1e-5, 1e-5)) << where;
    EXPECT_TRUE(torch::allclose(a.value, b.value, 1e-5, 1e-5)) << where;
    EXPECT_TRUE(torch::allclose(a.moves_left, b.moves_left, 1e-5, 1e-5)) << where;
    EXPECT_TRUE(torch::allclose(a.heads[kReplyHead], b.heads[kReplyHead], 1e-5, 1e-5)) << where;
  }
}

// Returns the sum of |t| over the slice [0, rows) x [from, t.size(1)).
float SliceMass(const torch::Tensor& t, int64_t rows, int64_t from) {
  return t.narrow(0, 0, rows).narrow(1, from, t.size(1) - from).abs().sum().item<float>();
}

TEST(GrowTest, ADeeperOrWiderNetComputesWhatTheSmallerOneDidAndThenLearns) {
  torch::manual_seed(11);
  std::vector<Position> positions = RandomPositions(6, 3);
  const torch::Tensor input = testing::EncodeBatch(positions.data(), 6);
  NetConfig small_config = SmallConfig(2, 12, 2, true);  // block 1 has the pooling bias
  small_config.head_channels[kReplyHead] = 4;
  LoaNet small(small_config);
  // Batch-norm statistics and weights other than the fresh ones, so that
  // copying them counts.
  small->train();
  for (int i = 0; i < 3; ++i) small->forward(input);
  for (int blocks : {2, 4}) {
    for (int channels : {12, 16}) {
      if (blocks == 2 && channels == 12) continue;
      NetConfig config = small_config;
      config.blocks = blocks;  // block 3 (new) has the pooling bias
      config.channels = channels;
      LoaNet grown(config);
      GrowInto(small, grown);
      ExpectSameOutputs(small, grown, input, config.ShortName());
      // It learns: one step of SGD moves the zeroed scales of the new
      // blocks and the zeroed weights from new channels into old ones.
      grown->train();
      torch::optim::SGD sgd(grown->parameters(), torch::optim::SGDOptions(0.1));
      sgd.zero_grad();
      const NetOutput out = grown->forward(input);
      (out.value.select(1, 0).sum() + out.policy.select(1, 0).sum()).backward();
      sgd.step();
      auto params = grown->named_parameters();
      if (blocks > 2) {
        EXPECT_GT(params["blocks.3.bn2.weight"].abs().sum().item<float>(), 0.0f);
      }
      if (channels > 12) {
        EXPECT_GT(SliceMass(params["blocks.1.conv2.weight"], 12, 12), 0.0f);
        EXPECT_GT(SliceMass(params["blocks.1.conv1.weight"], 12, 12), 0.0f);
        EXPECT_GT(SliceMass(params["policy.conv.weight"], small_config.policy_channels, 12), 0.0f);
      }
    }
  }
  // Growth in steps is growth at once: 2x12 -> 2x16 -> 4x16 computes 2x12.
  NetConfig wide = small_config, both = small_config;
  wide.channels = 16;
  both.blocks = 4;
  both.channels = 16;
  LoaNet step1(wide), step2(both);
  GrowInto(small, step1);
  GrowInto(step1, step2);
  ExpectSameOutputs(small, step2, input, "in steps");
  // Nothing else grows, and nothing shrinks.
  NetConfig other_heads = small_config, fewer_channels = small_config;
  other_heads.policy_channels = 16;
  fewer_channels.channels = 8;
  LoaNet heads(other_heads), narrow(fewer_channels);
  EXPECT_THROW(GrowInto(small, heads), Error);
  EXPECT_THROW(GrowInto(step2, small), Error);
  EXPECT_THROW(GrowInto(small, narrow), Error);
}

TEST(CheckpointTest, TheWeightAveragePlaysAndTheTrainedWeightsResume) {
  torch::manual_seed(5);
  NetConfig config = SmallConfig(2, 8, 2, true);
  std::vector<Position> positions = RandomPositions(8, 31);
  torch::Tensor input = testing::EncodeBatch(positions.data(), 8);
  LoaNet model(config), average(config);
  CopyWeights(model, average);
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
  TrainStep(model, sgd, input);
  UpdateAverage(average, model, 0.5);
  ASSERT_FALSE(SameWeights(model, average));
  std::string path = TempPath("average.pt");
  SaveCheckpoint(path, model, &sgd, TrainingState{3, {}, "simultaneous=draw"}, &average);
  EXPECT_TRUE(ReadCheckpointInfo(path).has_average);

  LoaNet trained(config), averaged(config);
  torch::optim::SGD loaded_sgd(trained->parameters(), torch::optim::SGDOptions(0.1));
  EXPECT_EQ(LoadCheckpoint(path, trained, &loaded_sgd, &averaged).step, 3);
  EXPECT_TRUE(SameWeights(trained, model));
  EXPECT_TRUE(SameWeights(averaged, average));
  LoaNet plays = LoadModel(path);
  EXPECT_TRUE(SameWeights(plays, average));
  EXPECT_EQ(ExportCheckpoint(path).Get("stem.conv.weight").data,
            ToExport(average, "simultaneous=draw", 3).Get("stem.conv.weight").data);

  // A checkpoint without an average gives the trained weights for both.
  std::string plain = TempPath("no_average.pt");
  SaveCheckpoint(plain, model, nullptr, TrainingState{});
  EXPECT_FALSE(ReadCheckpointInfo(plain).has_average);
  LoaNet again(config), again_average(config);
  LoadCheckpoint(plain, again, nullptr, &again_average);
  EXPECT_TRUE(SameWeights(again_average, model));
  LoaNet plain_plays = LoadModel(plain);
  EXPECT_TRUE(SameWeights(plain_plays, model));
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CheckpointTest, ErrorsNameTheFault) {
  NetConfig config = SmallConfig(1, 8, 0, true);
  LoaNet model(config);
  std::string path = TempPath("errors.pt");
  SaveCheckpoint(path, model, nullptr, TrainingState{});

  EXPECT_THROW(ReadCheckpointInfo(TempPath("missing.pt")), IoError);

  std::string bytes = ReadFile(path);
  std::string truncated = TempPath("truncated.pt");
  WriteFileAtomic(truncated, bytes.substr(0, bytes.size() * 2 / 3));
  EXPECT_NE(ErrorOf([&] { ReadCheckpointInfo(truncated); }).find("truncated"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { LoadModel(truncated); }).find("truncated"), std::string::npos);

  LoaNet other(SmallConfig(1, 16, 0, true));
  EXPECT_NE(ErrorOf([&] { LoadCheckpoint(path, other, nullptr); }).find("architecture"), std::string::npos);

  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
  EXPECT_NE(ErrorOf([&] { LoadCheckpoint(path, model, &sgd); }).find("no optimizer"), std::string::npos);

  // A checkpoint of encoder version 0, written by hand.
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string("loazero-checkpoint")));
  archive.write("version", c10::IValue(int64_t(2)));
  archive.write("encoder_version", c10::IValue(int64_t(0)));
  std::string old_path = TempPath("old_encoder.pt");
  archive.save_to(old_path);
  EXPECT_NE(ErrorOf([&] { ReadCheckpointInfo(old_path); }).find("encoder version 0"), std::string::npos);

  // An export is not a checkpoint.
  std::string export_path = TempPath("not_a_checkpoint.safetensors");
  WriteExport(export_path, ToExport(model, "", 0));
  EXPECT_NE(ErrorOf([&] { ReadCheckpointInfo(export_path); }).find("not a LOAZero checkpoint"), std::string::npos);
}

// Returns the bytes LibTorch writes for the model's own archive.
std::string ModelArchiveBytes(LoaNet& model) {
  torch::serialize::OutputArchive archive;
  model->save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

TEST(CheckpointTest, ADamagedByteFailsTheChecksum) {
  NetConfig config = SmallConfig(1, 8, 0, true);
  LoaNet model(config);
  const std::string path = TempPath("damaged.pt");
  SaveCheckpoint(path, model, nullptr, TrainingState{});
  std::string bytes = ReadFile(path);
  const std::string blob = ModelArchiveBytes(model);
  const size_t at = bytes.find(blob.substr(blob.size() / 2, 64));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 10] ^= 0x10;  // inside a weight: the zip structure is intact
  const std::string damaged = TempPath("damaged_copy.pt");
  WriteFileAtomic(damaged, bytes);
  LoaNet loaded(config);
  EXPECT_NE(ErrorOf([&] { LoadCheckpoint(damaged, loaded, nullptr); }).find("checksum of its model does not match"),
            std::string::npos);
  EXPECT_NO_THROW(LoadCheckpoint(path, loaded, nullptr));
}

TEST(CheckpointTest, NonFiniteWeightsAreRefused) {
  NetConfig config = SmallConfig(1, 8, 0, true);
  LoaNet model(config);
  {
    torch::NoGradGuard no_grad;
    model->named_parameters()["stem.conv.weight"][0][0][0][0] = std::nanf("");
  }
  EXPECT_NE(ErrorOf([&] {
              SaveCheckpoint(TempPath("nan.pt"), model, nullptr, TrainingState{});
            }).find("stem.conv.weight holds a non-finite value"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(TempPath("nan.pt")));

  // One written by another program, checksum and all, is refused on loading.
  const std::string blob = ModelArchiveBytes(model);
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string("loazero-checkpoint")));
  archive.write("version", c10::IValue(int64_t(2)));
  archive.write("encoder_version", c10::IValue(int64_t(kEncoderVersion)));
  archive.write("architecture", c10::IValue(config.ToJson()));
  archive.write("step", c10::IValue(int64_t(3)));
  archive.write("rules", c10::IValue(std::string()));
  archive.write("counters", c10::IValue(std::string("{}")));
  archive.write("has_optimizer", c10::IValue(false));
  torch::Tensor bytes = torch::empty({int64_t(blob.size())}, torch::kUInt8);
  std::memcpy(bytes.data_ptr<uint8_t>(), blob.data(), blob.size());
  archive.write("model", bytes);
  archive.write("model_checksum", c10::IValue(int64_t(Fnv1a64(blob))));
  const std::string path = TempPath("nan_by_hand.pt");
  archive.save_to(path);
  EXPECT_NE(ErrorOf([&] { LoadModel(path); }).find("non-finite"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { ExportCheckpoint(path); }).find("non-finite"), std::string::npos);
}

TEST(CheckpointTest, AnExistingFileIsNeverReplaced) {
  LoaNet model(SmallConfig(1, 8, 0, true));
  const std::string path = TempPath("kept.pt");
  WriteFileAtomic(path, "precious");
  EXPECT_THROW(SaveCheckpoint(path, model, nullptr, TrainingState{}), IoError);
  EXPECT_EQ(ReadFile(path), "precious");
}

TEST(CheckpointTest, ExportOfACheckpointRunsOnTheCpuBackendAsOnLibTorch) {
  ExportedNet random = RandomExport(SmallConfig(2, 16, 2, true), 40);
  LoaNet model = ModelOf(random);
  std::string checkpoint = TempPath("to_export.pt"), exported = TempPath("exported.safetensors");
  SaveCheckpoint(checkpoint, model, nullptr, TrainingState{12, {}, "simultaneous=mover"});
  WriteExport(exported, ExportCheckpoint(checkpoint));
  ExportedNet net = ReadExport(exported);
  EXPECT_EQ(net.step, 12);
  EXPECT_EQ(net.rules, "simultaneous=mover");
  for (const auto& [name, tensor] : random.tensors) EXPECT_EQ(net.Get(name).data, tensor.data) << name;

  std::vector<Position> positions = RandomPositions(12, 40);
  for (const char* backend : {"auto", "cpu", "eigen", "torch"}) {
    for (const std::string& file : {checkpoint, exported}) {
      NetEvaluatorOptions options;
      options.backend = backend;
      options.precision = "fp32";  // exact against the float reference
      std::unique_ptr<Evaluator> evaluator = MakeNetEvaluator(file, options);
      std::vector<EvalOutput> a(12), b(12);
      evaluator->Evaluate(positions.data(), 12, a.data());
      CpuEvaluator reference(random, 1);
      reference.Evaluate(positions.data(), 12, b.data());
      for (int i = 0; i < 12; ++i) ExpectSame(a[i], b[i], 1e-4f);
    }
  }
  NetEvaluatorOptions bad;
  bad.backend = "tensorflow";
  EXPECT_THROW(MakeNetEvaluator(exported, bad), Error);
  // With LibTorch every row runs; the torch row takes fp32 on the cpu, and
  // int8 (the cpu row's) is an error naming both, before the net is read.
  for (const BackendInfo& row : DescribeBackends()) EXPECT_EQ(row.missing, "") << row.name;
  bad.backend = "torch";
  bad.precision = "int8";
  try {
    MakeNetEvaluator(TempPath("nothing_here"), bad);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "precision int8 runs on cpu; backend torch on cpu takes fp32 or auto");
  }
  EXPECT_THROW(MakeNetEvaluator(TempPath("nothing_here"), NetEvaluatorOptions()), IoError);
}

TEST(ModelTest, TheTrainingOnlyHeadsTrainButAreNeitherExportedNorRun) {
  NetConfig config = SmallConfig(2, 8, 1, true);
  config.head_channels.fill(4);  // every row of net/training_heads.h
  torch::manual_seed(41);
  LoaNet model(config);
  std::vector<Position> positions = RandomPositions(5, 41);
  model->eval();
  const NetOutput out = model->forward(testing::EncodeBatch(positions.data(), 5));
  for (int h = 0; h < kNumTrainingHeads; ++h) {
    const TrainingHeadRow& row = kTrainingHeads[h];
    const std::vector<int64_t> shape = row.shape == HeadShape::kPolicy
                                           ? std::vector<int64_t>{5, kPolicySize}
                                           : std::vector<int64_t>{5, row.outputs, kNumSquares};
    EXPECT_EQ(out.heads[h].sizes(), shape) << row.name;
    EXPECT_EQ(out.heads[h].numel(), 5 * HeadFloats(row)) << row.name;
    if (row.shape == HeadShape::kPolicy) {
      EXPECT_FALSE(torch::equal(out.heads[h], out.policy)) << row.name;
    }
  }

  // The export: the same net without the heads, which plays as the model does.
  ExportedNet net = ToExport(model, "simultaneous=draw", 3);
  EXPECT_EQ(net.config, SmallConfig(2, 8, 1, true));
  for (const auto& [name, tensor] : net.tensors) {
    for (const TrainingHeadRow& row : kTrainingHeads) EXPECT_NE(name.rfind(std::string(row.name) + ".", 0), 0u) << name;
  }
  EXPECT_EQ(net.tensors.size(), TensorLayout(net.config).size());
  LoaNet played = ModelOf(net);
  const torch::Tensor input = testing::EncodeBatch(positions.data(), 5);
  EXPECT_TRUE(torch::equal(played->forward(input).policy, model->forward(input).policy));
  // An export loads into a model with the heads (which keep their own weights).
  LoaNet other(config);
  LoadExportInto(net, other);

  // A checkpoint keeps the heads; its export and every evaluator leave them out.
  const std::string checkpoint = TempPath("ownership.pt");
  SaveCheckpoint(checkpoint, model, nullptr, TrainingState{3, {}, "simultaneous=draw"});
  EXPECT_EQ(ReadCheckpointInfo(checkpoint).config, config);
  EXPECT_EQ(ExportCheckpoint(checkpoint).config, net.config);
  NetEvaluatorOptions options;
  options.backend = "torch";
  std::unique_ptr<Evaluator> evaluator = MakeNetEvaluator(checkpoint, options);
  std::vector<EvalOutput> a(5), b(5);
  evaluator->Evaluate(positions.data(), 5, a.data());
  CpuEvaluator(net, 1).Evaluate(positions.data(), 5, b.data());
  for (int i = 0; i < 5; ++i) ExpectSame(a[i], b[i], 1e-4f);
}

}  // namespace
}  // namespace loa
