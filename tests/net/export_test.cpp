// Safetensors, exports and the cpu evaluator (no LibTorch in this file).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "core/game.h"
#include "net/cpu_evaluator.h"
#include "net/export.h"
#include "net/net_evaluator.h"
#include "net/safetensors.h"
#include "net/symmetric_evaluator.h"
#include "net/symmetry.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

using testing::ExpectSame;
using testing::RandomExport;
using testing::SmallConfig;

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "loaz_net_" + name; }

TEST(SafeTensorsTest, LayoutAndRoundTrip) {
  SafeTensors st;
  st.tensors["b"] = {{2, 3}, {1, 2, 3, 4, 5, 6}};
  st.tensors["a"] = {{1}, {-0.5f}};
  st.metadata["key"] = "value";
  std::string bytes = SerializeSafeTensors(st);
  uint64_t header_length;
  std::memcpy(&header_length, bytes.data(), 8);
  EXPECT_EQ(header_length % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + header_length + 7 * sizeof(float));
  std::string header = bytes.substr(8, header_length);
  EXPECT_NE(header.find("\"dtype\":\"F32\""), std::string::npos) << header;
  EXPECT_NE(header.find("\"__metadata__\":{\"key\":\"value\"}"), std::string::npos) << header;
  SafeTensors back = ParseSafeTensors(bytes, "test");
  EXPECT_EQ(back.metadata, st.metadata);
  ASSERT_EQ(back.tensors.size(), 2u);
  EXPECT_EQ(back.tensors["b"].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back.tensors["b"].data, st.tensors["b"].data);
  EXPECT_EQ(back.tensors["a"].data, st.tensors["a"].data);
}

TEST(SafeTensorsTest, RejectsTruncatedAndMalformedFiles) {
  SafeTensors st;
  st.tensors["w"] = {{4}, {1, 2, 3, 4}};
  std::string bytes = SerializeSafeTensors(st);
  EXPECT_THROW(ParseSafeTensors(bytes.substr(0, 5), "x"), Error);
  EXPECT_THROW(ParseSafeTensors(bytes.substr(0, 20), "x"), Error);
  EXPECT_THROW(ParseSafeTensors(bytes.substr(0, bytes.size() - 1), "x"), Error);
  std::string f16 = bytes;
  f16.replace(f16.find("F32"), 3, "F16");
  EXPECT_THROW(ParseSafeTensors(f16, "x"), Error);
  std::string junk(64, 'x');
  EXPECT_THROW(ParseSafeTensors(junk, "x"), Error);
}

// Shapes and offsets that are not whole numbers a tensor can have (found by
// the safetensors fuzz target: an offset of 60 digits was converted to an
// unsigned integer, which is undefined) are errors naming the tensor.
TEST(SafeTensorsTest, ShapesAndOffsetsMustBeWholeNumbersTheFileHolds) {
  const auto file = [](const std::string& shape, const std::string& offsets) {
    std::string header = R"({"w": {"dtype": "F32", "shape": )" + shape + R"(, "data_offsets": )" + offsets + "}}";
    header.resize((header.size() + 7) / 8 * 8, ' ');
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = char((header.size() >> (8 * i)) & 0xff);
    return bytes + header + std::string(16, '\0');
  };
  EXPECT_EQ(ParseSafeTensors(file("[4]", "[0, 16]"), "x").tensors.at("w").shape, std::vector<int64_t>{4});
  for (const auto& [shape, offsets] : std::vector<std::pair<std::string, std::string>>{
           {"[4]", "[0, 111111111111111111111111111111111111111111111111111111111111]"},
           {"[4]", "[0, 16.0]"},
           {"[4]", "[-16, 0]"},
           {"[-4]", "[0, 16]"},
           {"[1.5]", "[0, 6]"},
           {"[4294967296, 4294967296]", "[0, 0]"},
           {"[1e60]", "[0, 16]"},
           {"4", "[0, 16]"}}) {
    try {
      ParseSafeTensors(file(shape, offsets), "x");
      ADD_FAILURE() << shape << " " << offsets << " was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("tensor w"), std::string::npos) << e.what();
    }
  }
}

TEST(ExportTest, RoundTrip) {
  ExportedNet net = RandomExport(SmallConfig(2, 16, 2, true), 1);
  std::string path = TempPath("round_trip.safetensors");
  WriteExport(path, net);
  EXPECT_TRUE(LooksLikeSafeTensors(path));
  ExportedNet back = ReadExport(path);
  EXPECT_EQ(back.config, net.config);
  EXPECT_EQ(back.rules, net.rules);
  EXPECT_EQ(back.step, net.step);
  ASSERT_EQ(back.tensors.size(), net.tensors.size());
  for (const auto& [name, tensor] : net.tensors) {
    EXPECT_EQ(back.Get(name).shape, tensor.shape) << name;
    EXPECT_EQ(back.Get(name).data, tensor.data) << name;
  }
}

// Writes st to a file and returns the message ReadExport throws for it.
std::string ReadError(const std::string& name, const SafeTensors& st) {
  std::string path = TempPath(name);
  WriteSafeTensors(path, st);
  try {
    ReadExport(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

SafeTensors AsSafeTensors(const ExportedNet& net) {
  std::string path = TempPath("as_safetensors.safetensors");
  WriteExport(path, net);
  return ParseSafeTensors(ReadFile(path), path);
}

TEST(ExportTest, ErrorsNameTheFault) {
  EXPECT_THROW(ReadExport(TempPath("does_not_exist.safetensors")), IoError);

  ExportedNet net = RandomExport(SmallConfig(2, 16, 0, false), 2);
  SafeTensors st = AsSafeTensors(net);
  EXPECT_EQ(ReadError("good.safetensors", st), "no error");

  SafeTensors old_encoder = st;
  old_encoder.metadata["encoder_version"] = "0";
  EXPECT_NE(ReadError("encoder.safetensors", old_encoder).find("encoder version 0"), std::string::npos);

  SafeTensors other_architecture = st;
  NetConfig bigger = net.config;
  bigger.channels = 32;
  other_architecture.metadata["architecture"] = bigger.ToJson();
  EXPECT_NE(ReadError("arch.safetensors", other_architecture).find("has shape"), std::string::npos);

  SafeTensors missing_tensor = st;
  missing_tensor.tensors.erase("blocks.1.conv2.weight");
  EXPECT_NE(ReadError("missing.safetensors", missing_tensor).find("lacks tensor blocks.1.conv2.weight"),
            std::string::npos);

  SafeTensors extra_tensor = st;
  extra_tensor.tensors["blocks.2.conv1.weight"] = {{1}, {0}};
  EXPECT_NE(ReadError("extra.safetensors", extra_tensor).find("not part of architecture"), std::string::npos);

  SafeTensors not_ours = st;
  not_ours.metadata.erase("format");
  EXPECT_NE(ReadError("format.safetensors", not_ours).find("not a LOAZero export"), std::string::npos);

  std::string path = TempPath("truncated.safetensors");
  WriteExport(path, net);
  std::string bytes = ReadFile(path);
  WriteFileAtomic(path, bytes.substr(0, bytes.size() / 2));
  try {
    ReadExport(path);
    ADD_FAILURE() << "a truncated export was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

// A net that is not finite plays moves of no meaning: a NaN or an infinity
// among its weights is refused when it is read (naming the file and the
// tensor), and finite weights whose outputs overflow when an evaluator is
// built from them.
TEST(ExportTest, ANetThatIsNotFiniteIsRefusedAtLoadTime) {
  const NetConfig config = SmallConfig(2, 16, 1, true);
  for (float bad : {std::nanf(""), INFINITY}) {
    ExportedNet net = RandomExport(config, 8);
    net.tensors.at("blocks.1.conv1.weight").data[5] = bad;
    const std::string path = TempPath("not_finite.safetensors");
    WriteExport(path, net);
    try {
      ReadExport(path);
      FAIL() << "a net holding " << bad << " was read";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_NE(message.find("blocks.1.conv1.weight"), std::string::npos) << message;
      EXPECT_NE(message.find("element 5"), std::string::npos) << message;
    }
    net.source = path;
    EXPECT_THROW(CpuEvaluator(net, 1, Precision::kFp32), Error);
  }
  ExportedNet overflowing = RandomExport(config, 9);
  overflowing.source = "overflowing.safetensors";
  for (auto& [name, tensor] : overflowing.tensors)
    if (name.find("conv") != std::string::npos && name.find("weight") != std::string::npos)
      for (float& w : tensor.data) w *= 1e20f;
  CheckTensors(overflowing);  // every weight finite
  for (Precision precision : {Precision::kFp32, Precision::kInt8}) {
    try {
      CpuEvaluator evaluator(overflowing, 1, precision);
      FAIL() << "a net whose outputs overflow was built, precision " << PrecisionName(precision);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("overflowing.safetensors: the net's"), std::string::npos) << e.what();
    }
  }
}

TEST(ExportTest, AverageIsTheElementwiseMeanOfItsNets) {
  const NetConfig config = SmallConfig(2, 16, 2, true);
  std::vector<ExportedNet> nets = {RandomExport(config, 1), RandomExport(config, 2), RandomExport(config, 3)};
  nets[0].step = 200;
  nets[1].step = 600;
  nets[2].step = 400;
  const ExportedNet mean = AverageNets(nets);
  EXPECT_EQ(mean.config, config);
  EXPECT_EQ(mean.rules, nets[0].rules);
  EXPECT_EQ(mean.step, 600);  // the newest net's
  ASSERT_EQ(mean.tensors.size(), nets[0].tensors.size());
  for (const auto& [name, tensor] : mean.tensors) {
    ASSERT_EQ(tensor.shape, nets[0].Get(name).shape) << name;
    for (std::size_t k = 0; k < tensor.data.size(); ++k) {
      const float expected = (nets[0].Get(name).data[k] + nets[1].Get(name).data[k] + nets[2].Get(name).data[k]) / 3;
      ASSERT_NEAR(tensor.data[k], expected, 1e-6f) << name << "[" << k << "]";
    }
  }
  // One net averages to itself, and the average writes and reads as an export.
  EXPECT_EQ(AverageNets({nets[1]}).Get("blocks.1.conv2.weight").data, nets[1].Get("blocks.1.conv2.weight").data);
  const std::string path = TempPath("average.safetensors");
  WriteExport(path, mean);
  EXPECT_EQ(ReadExport(path).Get("policy.conv.weight").data, mean.Get("policy.conv.weight").data);
}

TEST(ExportTest, AverageRefusesNetsThatDoNotMatch) {
  EXPECT_THROW(AverageNets({}), Error);
  ExportedNet a = RandomExport(SmallConfig(2, 16, 2, true), 1);
  ExportedNet wider = RandomExport(SmallConfig(2, 32, 2, true), 2);
  wider.source = "wider.pt";
  try {
    AverageNets({a, wider});
    ADD_FAILURE() << "nets of two architectures were averaged";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wider.pt"), std::string::npos) << e.what();
  }
  ExportedNet other_rules = RandomExport(SmallConfig(2, 16, 2, true), 3);
  other_rules.rules = "simultaneous=mover start=standard max_plies=0";
  EXPECT_THROW(AverageNets({a, other_rules}), Error);
}

TEST(ExportTest, ArchitecturesWrittenBeforeTheTrainingOnlyHeadsHaveNone) {
  // The shipped nets' architecture JSON predates the later heads' keys; a
  // config without a head writes none, so that older builds read it.
  nlohmann::json older = nlohmann::json::parse(SmallConfig(2, 16, 0, false).ToJson());
  for (const TrainingHeadRow& row : kTrainingHeads) EXPECT_FALSE(older.contains(row.channels_key)) << row.name;
  older["ownership_channels"] = 0;  // as the files between the heads have it
  EXPECT_EQ(NetConfig::FromJson(older.dump()), SmallConfig(2, 16, 0, false));
  older.erase("ownership_channels");
  for (int h = 0; h < kNumTrainingHeads; ++h) EXPECT_EQ(NetConfig::FromJson(older.dump()).head_channels[h], 0);
  // Every other key is still required.
  older.erase("value_hidden");
  EXPECT_THROW(NetConfig::FromJson(older.dump()), ParseError);
  // An export's config never has the heads.
  NetConfig with_head = SmallConfig(2, 16, 0, false);
  with_head.head_channels.fill(8);
  // A config with heads round-trips through its JSON, key by key.
  EXPECT_EQ(NetConfig::FromJson(with_head.ToJson()), with_head);
  const nlohmann::json with_keys = nlohmann::json::parse(with_head.ToJson());
  for (const TrainingHeadRow& row : kTrainingHeads) EXPECT_EQ(with_keys.at(row.channels_key), 8) << row.name;
  EXPECT_EQ(with_head.Exported(), SmallConfig(2, 16, 0, false));
  EXPECT_EQ(TensorLayout(with_head.Exported()), TensorLayout(SmallConfig(2, 16, 0, false)));
}

// Returns the outputs of evaluator for positions, one call per position.
std::vector<EvalOutput> OneByOne(Evaluator& evaluator, const std::vector<Position>& positions) {
  std::vector<EvalOutput> out(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) evaluator.Evaluate(&positions[i], 1, &out[i]);
  return out;
}

TEST(CpuEvaluatorTest, OutputsAreDistributionsAndBatchesAgree) {
  ExportedNet net = RandomExport(SmallConfig(3, 16, 2, true), 3);
  CpuEvaluator evaluator(net, 2);
  std::vector<Position> positions = RandomPositions(70, 3);  // several chunks, a partial one
  std::vector<EvalOutput> batch(positions.size());
  evaluator.Evaluate(positions.data(), int(positions.size()), batch.data());
  std::vector<EvalOutput> single = OneByOne(evaluator, positions);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const EvalOutput& out = batch[i];
    EXPECT_EQ(out.num_moves, positions[i].CountMoves());
    EXPECT_NEAR(std::accumulate(out.priors, out.priors + out.num_moves, 0.0f), 1.0f, 1e-5);
    EXPECT_NEAR(out.wdl[0] + out.wdl[1] + out.wdl[2], 1.0f, 1e-5);
    EXPECT_GE(out.moves_left, 0.0f);
    ExpectSame(out, single[i], 1e-5f);
  }
}

TEST(CpuEvaluatorTest, ANetSaysItsBoardAndEvaluatesIt) {
  ExportedNet net = RandomExport(SmallConfig(2, 16, 2, true), 5);
  EXPECT_EQ(net.board_size(), 8);  // rules written before sizes
  EXPECT_EQ(CpuEvaluator(net, 1).board_size(), 8);
  net.rules = Rules::FromString("size=6").ToString();
  CpuEvaluator six(net, 1);
  EXPECT_EQ(six.board_size(), 6);
  SymmetricEvaluator symmetric(std::make_unique<CpuEvaluator>(net, 1), 8);
  EXPECT_TRUE(symmetric.PlaysBoardSize(6));
  EXPECT_FALSE(symmetric.PlaysBoardSize(8));
  EXPECT_FALSE(six.PlaysBoardSize(8));
  std::vector<Position> positions = RandomPositions(20, 6, true, 200, 6);
  std::vector<EvalOutput> out(positions.size());
  six.Evaluate(positions.data(), int(positions.size()), out.data());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    EXPECT_EQ(out[i].num_moves, positions[i].CountMoves());
    EXPECT_NEAR(std::accumulate(out[i].priors, out[i].priors + out[i].num_moves, 0.0f), 1.0f, 1e-5);
  }
}

TEST(CpuEvaluatorTest, ConcurrentCallsGiveTheSameResults) {
  ExportedNet net = RandomExport(SmallConfig(2, 16, 0, false), 4);
  CpuEvaluator evaluator(net, 1);
  std::vector<Position> positions = RandomPositions(40, 4);
  std::vector<EvalOutput> expected = OneByOne(evaluator, positions);
  std::vector<std::vector<EvalOutput>> results(4);
  std::vector<std::thread> threads;
  for (auto& result : results) threads.emplace_back([&] { result = OneByOne(evaluator, positions); });
  for (auto& t : threads) t.join();
  for (const auto& result : results)
    for (std::size_t i = 0; i < positions.size(); ++i) ExpectSame(result[i], expected[i], 0.0f);
}

TEST(NetEvaluatorOptionsTest, OnePrecisionVocabularyForBothDevices) {
  NetEvaluatorOptions options;
  EXPECT_EQ(options.CudaPrecision(), "bf16");  // auto on cuda
  options.cuda_precision = "fp16";             // the old key still counts
  EXPECT_EQ(options.CudaPrecision(), "fp16");
  options.precision = "fp32";  // the one key wins over the old one
  EXPECT_EQ(options.CudaPrecision(), "fp32");
  options.precision = "int8";
  EXPECT_THROW(options.CudaPrecision(), Error);
  // A cuda precision on the cpu is an error naming it, before the net is read.
  options.precision = "bf16";
  try {
    MakeNetEvaluator("no_such_net.safetensors", options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("precision bf16 runs on cuda"), std::string::npos) << e.what();
  }
}

TEST(SymmetricEvaluatorTest, AllEightMakeAnyNetInvariant) {
  ExportedNet net = RandomExport(SmallConfig(2, 8, 2, true), 6);
  SymmetricEvaluator one(std::make_unique<CpuEvaluator>(net, 1), 1);
  SymmetricEvaluator all(std::make_unique<CpuEvaluator>(net, 1), 8);
  CpuEvaluator plain(net, 1);
  std::vector<Position> positions = RandomPositions(6, 6);
  for (const Position& pos : positions) {
    EvalOutput a, b;
    one.Evaluate(&pos, 1, &a);
    plain.Evaluate(&pos, 1, &b);
    ExpectSame(a, b, 0.0f);
    EvalOutput base;
    all.Evaluate(&pos, 1, &base);
    EXPECT_NEAR(std::accumulate(base.priors, base.priors + base.num_moves, 0.0f), 1.0f, 1e-5);
    MoveList moves;
    pos.GenerateMoves(moves);
    for (int t = 1; t < kNumSymmetries; ++t) {
      Position image = TransformPosition(t, pos);
      EvalOutput mapped;
      all.Evaluate(&image, 1, &mapped);
      MoveList image_moves;
      image.GenerateMoves(image_moves);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(mapped.wdl[k], base.wdl[k], 1e-5);
      for (int i = 0; i < moves.size(); ++i) {
        int j =
            int(std::find(image_moves.begin(), image_moves.end(), TransformMove(t, moves[i])) - image_moves.begin());
        ASSERT_LT(j, image_moves.size());
        EXPECT_NEAR(mapped.priors[j], base.priors[i], 1e-5);
      }
    }
  }
  // The plain net is not invariant: the averaging does the work.
  Position pos = positions.back(), image = TransformPosition(5, pos);
  EvalOutput a, b;
  plain.Evaluate(&pos, 1, &a);
  plain.Evaluate(&image, 1, &b);
  EXPECT_GT(std::abs(a.wdl[0] - b.wdl[0]) + std::abs(a.wdl[2] - b.wdl[2]), 1e-4);
  EXPECT_THROW(SymmetricEvaluator(std::make_unique<CpuEvaluator>(net, 1), 9), Error);
}

}  // namespace
}  // namespace loa
