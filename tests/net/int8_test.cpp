// The int8 evaluator against float32: on a fixed trained net (the kernels'
// reference, tests/data/nets/int8_reference.safetensors, a 2-hour 4x32 net)
// real positions (the expert games and the net's own play) give outputs
// within tight tolerances and the same search decisions in most positions;
// the net that ships (nets/default.safetensors, whichever it is) keeps the
// search decisions and the values; and the calibration set is still the
// expert games.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/game.h"
#include "core/random_play.h"
#include "core/record.h"
#include "mcts/search.h"
#include "net/backends.h"
#include "net/calibration.h"
#include "net/cpu_evaluator.h"
#include "net/export.h"
#include "net/onednn_trunk.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

const std::string kSource = LOAZ_SOURCE_DIR;

TEST(CalibrationTest, ThePositionsAreTheExpertGames) {
  std::vector<std::string> expected;
  std::set<std::string> seen;
  for (int appendix = 0; appendix < 2; ++appendix)
    for (int n = 1; n <= 20; ++n) {
      const std::string name = std::string("appendix_") + (appendix ? "F" : "E") + "_game" + std::to_string(n);
      for (const std::string suffix : {".txt", "_incomplete.txt"}) {
        std::ifstream in(kSource + "/tests/data/games/" + name + suffix);
        if (!in) continue;
        std::stringstream text;
        text << in.rdbuf();
        Game game = ReplayRecord(ParseRecord(text.str(), name), Rules(), name);
        std::vector<std::string> backwards;
        do backwards.push_back(game.position().ToString());
        while (game.Undo());
        for (auto it = backwards.rbegin(); it != backwards.rend(); ++it)
          if (seen.insert(*it).second) expected.push_back(*it);
      }
    }
  const std::vector<Position>& positions = CalibrationPositions();
  ASSERT_EQ(positions.size(), expected.size()) << "regenerate net/calibration_positions.inc from tests/data/games";
  for (std::size_t i = 0; i < positions.size(); ++i) EXPECT_EQ(positions[i].ToString(), expected[i]) << "at " << i;
}

// The expert positions and `games` games of the net's own play (moves
// sampled from its policy), in the order played.
std::vector<Position> TestPositions(Evaluator& net, int games, uint32_t seed) {
  std::vector<Position> out = CalibrationPositions();
  Rng rng(seed);
  for (int g = 0; g < games; ++g) {
    Game game;
    while (!game.over() && game.ply() < 150) {
      EvalOutput eval;
      net.Evaluate(&game.position(), 1, &eval);
      out.push_back(game.position());
      MoveList moves;
      game.LegalMoves(moves);
      if (int(moves.size()) != eval.num_moves) {  // the pass
        game.Play(moves[0]);
        continue;
      }
      // A move drawn in proportion to the net's prior.
      double u = rng.Uniform() * std::accumulate(eval.priors, eval.priors + eval.num_moves, 0.0);
      int k = 0;
      while (k + 1 < eval.num_moves && (u -= eval.priors[k]) > 0) ++k;
      game.Play(moves[k]);
    }
  }
  return out;
}

float Value(const EvalOutput& e) { return e.wdl[0] - e.wdl[2]; }

int TopMove(const EvalOutput& e) { return int(std::max_element(e.priors, e.priors + e.num_moves) - e.priors); }

// The share of expert positions (every fifth) in which 100-playout searches
// with the two evaluators choose the same move.
double SameSearchMoveShare(Evaluator& fp32, Evaluator& int8) {
  const std::vector<Position>& positions = CalibrationPositions();
  SearchParams params;
  params.reuse_tree = false;
  SearchLimits limits;
  limits.playouts = 100;
  limits.early_stop = false;
  int same = 0, searched = 0;
  for (std::size_t i = 0; i < positions.size(); i += 5) {
    Game game(Rules(), positions[i]);
    if (game.over()) continue;
    Search a(&fp32, params), b(&int8, params);
    same += a.Run(game, limits).best_move == b.Run(game, limits).best_move;
    ++searched;
  }
  std::printf("100-playout searches: the same move in %d of %d positions\n", same, searched);
  return double(same) / searched;
}

// Half the L1 distance between two outputs' move priors (the total
// variation: the probability mass that int8 moved).
double PriorDistance(const EvalOutput& a, const EvalOutput& b) {
  double d = 0;
  for (int m = 0; m < a.num_moves; ++m) d += std::abs(a.priors[m] - b.priors[m]);
  return d / 2;
}

class Int8Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    reference_ = new ExportedNet(ReadNetFile(kSource + "/tests/data/nets/int8_reference.safetensors"));
  }
  static void TearDownTestSuite() { delete reference_; }
  static ExportedNet* reference_;
};
ExportedNet* Int8Test::reference_ = nullptr;

TEST(Int8ConnectionTest, ANetOfTheConnectionSetRunsInInt8AsInFp32) {
  NetConfig config = testing::SmallConfig(2, 16, 1, true);
  config.input_features = "connection";
  const ExportedNet net = testing::RandomExport(config, 31);
  CpuEvaluator fp32(net, 1, Precision::kFp32), int8(net, 1, Precision::kInt8);
  if (int8.precision() != Precision::kInt8) GTEST_SKIP() << "below AVX2: int8 runs fp32";
  const std::vector<Position> positions = RandomPositions(200, 31);
  std::vector<EvalOutput> a(positions.size()), b(positions.size());
  fp32.Evaluate(positions.data(), int(positions.size()), a.data());
  int8.Evaluate(positions.data(), int(positions.size()), b.data());
  double error = 0;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    ASSERT_EQ(a[i].num_moves, b[i].num_moves);
    error += std::abs(Value(a[i]) - Value(b[i]));
    EXPECT_NEAR(std::accumulate(b[i].priors, b[i].priors + b[i].num_moves, 0.0), 1.0, 1e-4);
  }
  EXPECT_LT(error / double(positions.size()), 0.05);
}

TEST_F(Int8Test, OutputsFollowFp32OnRealPositions) {
  CpuEvaluator fp32(*reference_, 1, Precision::kFp32), int8(*reference_, 1, Precision::kInt8);
  ASSERT_EQ(int8.precision(), Precision::kInt8);
  const std::vector<Position> positions = TestPositions(fp32, 48, 1);
  ASSERT_GT(positions.size(), 2000u);
  const int n = int(positions.size());
  std::vector<EvalOutput> a(n), b(n), again(n);
  fp32.Evaluate(positions.data(), n, a.data());
  int8.Evaluate(positions.data(), n, b.data());
  int8.Evaluate(positions.data(), n, again.data());
  double value_error = 0, max_value_error = 0, max_prior_error = 0;
  int same_top = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(a[i].num_moves, b[i].num_moves);
    const double e = std::abs(Value(a[i]) - Value(b[i]));
    value_error += e;
    max_value_error = std::max(max_value_error, e);
    for (int m = 0; m < a[i].num_moves; ++m)
      max_prior_error = std::max(max_prior_error, double(std::abs(a[i].priors[m] - b[i].priors[m])));
    same_top += TopMove(a[i]) == TopMove(b[i]);
    // Deterministic: the same position gives the same output to the bit.
    ASSERT_EQ(Value(b[i]), Value(again[i]));
    for (int m = 0; m < b[i].num_moves; ++m) ASSERT_EQ(b[i].priors[m], again[i].priors[m]);
  }
  const double share = double(same_top) / n;
  RecordProperty("positions", n);
  std::printf(
      "int8 vs fp32 over %d positions: mean |value error| %.4f, max %.4f; max |prior error| %.4f; "
      "the same top move in %.1f%%\n",
      n, value_error / n, max_value_error, max_prior_error, 100 * share);
  EXPECT_LT(value_error / n, 0.03);
  EXPECT_LT(max_value_error, 0.2);
  EXPECT_LT(max_prior_error, 0.08);
  EXPECT_GT(share, 0.95);
}

TEST_F(Int8Test, SearchesChooseTheSameMoveInMostPositions) {
  CpuEvaluator fp32(*reference_, 1, Precision::kFp32), int8(*reference_, 1, Precision::kInt8);
  EXPECT_GT(SameSearchMoveShare(fp32, int8), 0.9);
}

// The shipped net, whatever its shape and input planes: int8 keeps what
// the search reads (its decisions, the values, the priors' mass) within
// bounds that do not depend on one net's sharpness; the reference net's
// per-output bounds above are the kernels' finer check.
TEST(Int8ShippedNetTest, SearchesValuesAndPriorsFollowFp32) {
  const ExportedNet net = ReadNetFile(kSource + "/nets/default.safetensors");
  CpuEvaluator fp32(net, 1, Precision::kFp32), int8(net, 1, Precision::kInt8);
  if (int8.precision() != Precision::kInt8) GTEST_SKIP() << "below AVX2: int8 runs fp32";
  const std::vector<Position> positions = TestPositions(fp32, 24, 2);
  const int n = int(positions.size());
  std::vector<EvalOutput> a(n), b(n);
  fp32.Evaluate(positions.data(), n, a.data());
  int8.Evaluate(positions.data(), n, b.data());
  double value_error = 0, prior_distance = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(a[i].num_moves, b[i].num_moves);
    value_error += std::abs(Value(a[i]) - Value(b[i]));
    prior_distance += PriorDistance(a[i], b[i]);
  }
  std::printf("the shipped net, %d positions: mean |value error| %.4f, mean prior distance %.4f\n", n, value_error / n,
              prior_distance / n);
  EXPECT_LT(value_error / n, 0.03);
  EXPECT_LT(prior_distance / n, 0.05);
  EXPECT_GT(SameSearchMoveShare(fp32, int8), 0.9);
}

// Self-play evaluates its batches on several threads at once, each a chunk
// of the batch; the outputs must be those of one thread (up to the float
// rounding of other chunk sizes), in both precisions. (In int8, oneDNN's
// kernels once ran inside the evaluator's team as if it were theirs and
// returned wrong outputs; self-play games of nets so misread lasted twice
// as long.)
TEST_F(Int8Test, ThreadsGiveTheOutputsOfOneThread) {
  const std::vector<Position> positions = RandomPositions(600, 7);
  const int n = int(positions.size());
  for (Precision precision : {Precision::kFp32, Precision::kInt8}) {
    CpuEvaluator one(*reference_, 1, precision), two(*reference_, 2, precision);
    std::vector<EvalOutput> a(n), b(n);
    one.Evaluate(positions.data(), n, a.data());
    // Batches of self-play's sizes, several rounds, so that the threads'
    // convolutions overlap in time.
    for (int round = 0; round < 4; ++round)
      for (int first = 0; first < n; first += 200) {
        const int count = std::min(200, n - first);
        two.Evaluate(positions.data() + first, count, b.data() + first);
        for (int i = first; i < first + count; ++i) {
          ASSERT_NEAR(Value(a[i]), Value(b[i]), 1e-4) << "precision " << int(precision) << ", position " << i;
          for (int m = 0; m < a[i].num_moves; ++m)
            ASSERT_NEAR(a[i].priors[m], b[i].priors[m], 1e-4) << "position " << i;
        }
      }
  }
}

// int8 where oneDNN runs AVX2 or wider, as capped (ONEDNN_MAX_CPU_ISA).
TEST(Int8PrecisionTest, AnInt8RequestFallsBackBelowAvx2) {
  EXPECT_EQ(ResolvePrecision("fp32"), Precision::kFp32);
  EXPECT_EQ(ResolvePrecision("int8"), OneDnnHasFastInt8() ? Precision::kInt8 : Precision::kFp32);
  EXPECT_EQ(ResolvePrecision("int8"), ResolvePrecision("auto"));
  EXPECT_THROW(ResolvePrecision("bf16"), Error);
}

}  // namespace
}  // namespace loa
