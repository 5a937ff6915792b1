// Tests of the tuning (alphabeta/tuning.h) and the weights file.

#include "alphabeta/tuning.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "alphabeta/weights_file.h"
#include "core/error.h"
#include "core/random.h"
#include "core/random_play.h"
#include "core/testing.h"

namespace loa::ab {
namespace {

TEST(TuningTest, LogisticFitRecoversKnownWeights) {
  // Targets drawn from p = sigmoid(0.8 x0 - 0.05 x1 + 0.3): the fit finds them.
  Rng rng(3);
  const std::vector<double> truth = {0.8, -0.05, 0.3};
  std::vector<double> rows;
  std::vector<float> targets;
  std::vector<char> holdout;
  for (int i = 0; i < 40000; ++i) {
    const double x0 = 4 * rng.Uniform() - 2, x1 = 100 * rng.Uniform() - 50;
    rows.insert(rows.end(), {x0, x1, 1.0});
    const double p = 1 / (1 + std::exp(-(truth[0] * x0 + truth[1] * x1 + truth[2])));
    targets.push_back(rng.Uniform() < p ? 1.0f : 0.0f);
    holdout.push_back(i % 10 == 0);
  }
  const LogisticFit fit = FitLogistic(rows, 3, targets, holdout, 0, 10);
  EXPECT_NEAR(fit.beta[0], truth[0], 0.05);
  EXPECT_NEAR(fit.beta[1], truth[1], 0.005);
  EXPECT_NEAR(fit.beta[2], truth[2], 0.05);
  // The truth scores about as well on the held-out rows; zero weights worse.
  EXPECT_NEAR(fit.holdout_loss, LogisticLoss(rows, 3, truth, targets, holdout, true), 0.01);
  EXPECT_LT(fit.holdout_loss, LogisticLoss(rows, 3, {0, 0, 0}, targets, holdout, true) - 0.05);
}

TEST(TuningTest, FeatureRowTimesWeightsIsTheStaticScore) {
  EvalWeights w = EvalWeights::Version1();
  w.groups = 7;
  w.pieces = -3;
  w.outside = 5;
  w.square_a1 = -9;
  w.square_d3 = 4;
  w.scale = 1;
  for (bool tapered : {false, true}) {
    w.tapered = tapered;
    for (int k = 0; k < kNumEvalTerms; ++k) w.late[k] = 3 * k - 11;
    for (const Game& game : testing::RandomGames(20, 5, Rules(), 4, 90, true)) {
      std::vector<double> row;
      AppendFeatureRow(game.position(), tapered, row);
      ASSERT_EQ(row.size(), size_t(kNumEvalTerms * (tapered ? 2 : 1)));
      double dot = 0;
      for (int k = 0; k < kNumEvalTerms; ++k) {
        dot += row[k] * (w.*kEvalTerms[k].weight);
        if (tapered) dot += row[kNumEvalTerms + k] * w.late[k];
      }
      EXPECT_NEAR(dot, StaticScore(game.position(), w), 1.0) << game.position().ToString();
    }
  }
}

TEST(TuningTest, TaperedWeightsBlendByPiecesOnTheBoard) {
  // Only the tempo: 100 with a full board, -100 with two pieces.
  EvalWeights w;
  for (const EvalTerm& t : kEvalTerms) w.*t.weight = 0;
  w.side_to_move = 100;
  w.scale = 1;
  w.tapered = true;
  w.late.fill(0);
  w.late[TermIndex(&EvalWeights::side_to_move)] = -100;
  EXPECT_EQ(StaticScore(Position::Start(), w), 100);  // 24 pieces
  EXPECT_EQ(StaticScore(Position::FromString("8/8/8/3b4/8/4w3/8/8 b"), w), -100);
  EXPECT_EQ(StaticScore(Position::FromString("8/2bb4/8/3b4/8/4w3/5ww1/8 b"), w),
            (100 * 4 - 100 * 18) / 22);  // 6 pieces: 4 of 22 steps from the ending
}

TEST(TuningTest, WeightsFromFitScalesTheLogit) {
  std::vector<double> beta(kNumEvalTerms, 0);
  beta[0] = 0.01;  // concentration
  beta[TermIndex(&EvalWeights::side_to_move)] = 0.5;
  const EvalWeights w = WeightsFromFit(beta, 40, 16);
  EXPECT_EQ(w.scale, 16);
  EXPECT_EQ(w.concentration, 6);   // 0.01 * 40 * 16 = 6.4
  EXPECT_EQ(w.side_to_move, 320);  // 0.5 * 40 * 16
  EXPECT_EQ(w.mobility, 0);
}

TEST(TuningTest, CategoryProbabilityIsChosenOverAvailable) {
  // A player who always plays the first move listed: its category's
  // probability is the share of its availabilities that were first.
  CategoryCounter counter;
  std::vector<int> first(kNumMoveCategories), available(kNumMoveCategories);
  for (const Game& game : testing::RandomGames(30, 9, Rules(), 2, 40, true)) {
    const Position& pos = game.position();
    MoveList moves;
    pos.GenerateMoves(moves);
    if (moves[0].is_pass()) continue;
    float choice[kMaxMoves] = {};
    choice[0] = 1;
    counter.Add(pos, choice);
    const MoveCategorizer categorizer(pos);
    for (int i = 0; i < moves.size(); ++i) ++available[categorizer.Category(moves[i])];
    ++first[categorizer.Category(moves[0])];
  }
  const CategoryModel model = counter.Model();
  int checked = 0;
  for (int c = 0; c < kNumMoveCategories; ++c) {
    if (first[c] == 0) continue;
    EXPECT_FLOAT_EQ(model.probability[c], float(first[c]) / float(available[c]));
    ++checked;
  }
  EXPECT_GT(checked, 3);
  EXPECT_GT(model.reference, 0);
  EXPECT_LT(model.reference, 1);
}

TEST(TuningTest, CategoriesSeeCapturesRingsAndContacts) {
  const Position start = Position::Start();
  const MoveCategorizer categorizer(start);
  MoveList moves;
  start.GenerateMoves(moves);
  std::set<int> seen;
  for (Move m : moves) seen.insert(categorizer.Category(m));
  EXPECT_GT(seen.size(), 3u);  // the start's moves fall in several categories
  for (int c : seen) {
    EXPECT_GE(c, 0);
    EXPECT_LT(c, kNumMoveCategories);
  }
}

class WeightsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("loaz_weights_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(WeightsFileTest, RoundTrips) {
  Weights w;
  w.eval = EvalWeights::Version1();
  w.eval.groups = -12;
  w.eval.tapered = true;
  w.eval.late[3] = 77;
  w.eval.scale = 16;
  w.categories = CategoryModel::Uniform();
  w.categories.probability[5] = 0.25f;
  w.categories.reference = 0.05f;
  const Weights back = ReadWeightsFile(Write("w.json", WeightsFileText(w, "{\"target\": \"net\"}")));
  for (const EvalTerm& t : kEvalTerms) EXPECT_EQ(back.eval.*t.weight, w.eval.*t.weight) << t.name;
  EXPECT_EQ(back.eval.scale, 16);
  EXPECT_TRUE(back.eval.tapered);
  EXPECT_EQ(back.eval.late, w.eval.late);
  EXPECT_FLOAT_EQ(back.categories.probability[5], 0.25f);
  EXPECT_FLOAT_EQ(back.categories.reference, 0.05f);
}

TEST_F(WeightsFileTest, TermsAFileLacksWeighNothing) {
  // A file of version 3's time has no square classes: it reads as written,
  // not with today's square weights.
  const Weights back = ReadWeightsFile(
      Write("old.json", "{\"format\": \"loaz-ab-weights\", \"format_version\": 1, \"eval\": {\"walls\": 30}}"));
  EXPECT_EQ(back.eval.walls, 30);
  EXPECT_EQ(back.eval.square_a1, 0);
  EXPECT_EQ(back.eval.concentration, 0);
  EXPECT_EQ(back.eval.scale, 1);
  EXPECT_FALSE(back.eval.tapered);
  EXPECT_NE(EvalWeights::Default().square_a1, 0);
}

TEST_F(WeightsFileTest, BadInputNamesTheFileAndKey) {
  const auto message = [&](const std::string& text) {
    const std::string path = Write("bad.json", text);
    try {
      ReadWeightsFile(path);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "{\"format\": \"loaz-ab-weights\", \"format_version\": 1, ";
  EXPECT_NE(message("{").find("not JSON"), std::string::npos);
  EXPECT_NE(message("{\"format\": \"x\"}").find("'format'"), std::string::npos);
  EXPECT_NE(message(head + "\"eval\": {\"walls\": 1.5}}").find("'eval.walls'"), std::string::npos);
  EXPECT_NE(message(head + "\"eval\": {\"scale\": 0}}").find("'eval.scale'"), std::string::npos);
  EXPECT_NE(message(head + "\"categories\": {\"probability\": [0.5]}}").find("'categories.probability'"),
            std::string::npos);
  EXPECT_NE(message(head + "\"categories\": {\"reference\": 2}}").find("'categories.reference'"), std::string::npos);
}

}  // namespace
}  // namespace loa::ab
