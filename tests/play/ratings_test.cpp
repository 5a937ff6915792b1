// Elo, SPRT and Bradley-Terry against values computed independently (by
// hand, or with a Python golden-section search over the one free parameter
// of the trinomial for the GSPRT).

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "play/ratings.h"

namespace loa {
namespace {

TEST(EloTest, ConvertsBetweenScoreAndElo) {
  EXPECT_NEAR(EloFromScore(0.75), 190.848, 1e-3);  // 400 log10(3)
  EXPECT_NEAR(EloFromScore(0.5), 0.0, 1e-12);
  EXPECT_NEAR(ScoreFromElo(400), 10.0 / 11.0, 1e-12);
  EXPECT_NEAR(ScoreFromElo(EloFromScore(0.3)), 0.3, 1e-12);
}

TEST(EloTest, EstimatesWithTheIntervalOfCutechess) {
  // 60 wins, 20 draws, 20 losses: score 0.7, per-game variance 0.16.
  const EloEstimate a = EstimateElo(60, 20, 20);
  EXPECT_NEAR(a.score, 0.7, 1e-12);
  EXPECT_NEAR(a.elo, 147.1907, 1e-3);
  EXPECT_NEAR(a.ci95, 66.0134, 1e-3);
  const EloEstimate b = EstimateElo(30, 40, 30);
  EXPECT_NEAR(b.elo, 0.0, 1e-9);
  EXPECT_NEAR(b.ci95, 53.1580, 1e-3);
  const EloEstimate c = EstimateElo(12, 5, 3);
  EXPECT_NEAR(c.elo, 168.4021, 1e-3);
  EXPECT_NEAR(c.ci95, 157.1367, 1e-3);
}

TEST(EloTest, KeepsAPerfectScoreFinite) {
  // 10 wins of 10 count as 9.975: a quarter game moved to the middle.
  const EloEstimate e = EstimateElo(10, 0, 0);
  EXPECT_EQ(e.score, 1.0);
  EXPECT_NEAR(e.elo, EloFromScore(1 - 0.025), 1e-9);
  EXPECT_GT(e.ci95, 0);
  EXPECT_NEAR(EstimateElo(0, 0, 10).elo, -e.elo, 1e-9);
  EXPECT_EQ(EstimateElo(0, 0, 0).elo, 0);
}

TEST(SprtTest, LlrMatchesTheGeneralisedSprt) {
  EXPECT_NEAR(SprtLlr(600, 800, 500, 0, 5), 2.146812, 1e-5);
  EXPECT_NEAR(SprtLlr(100, 50, 80, 0, 10), 0.614076, 1e-5);
  EXPECT_NEAR(SprtLlr(50, 30, 45, 0, 20), 0.106369, 1e-5);
  EXPECT_NEAR(SprtLlr(1000, 1000, 1000, -3, 3), 0.0, 1e-8);
  // Empty classes count as 0.001 games (fishtest's regularisation).
  EXPECT_NEAR(SprtLlr(5, 0, 0, 0, 5), 0.071438, 1e-5);
  EXPECT_NEAR(SprtLlr(20, 0, 0, 0, 200), 8.367231, 1e-5);
}

TEST(SprtTest, DecidesAtWaldsBounds) {
  const SprtConfig config{0, 5, 0.05, 0.05};
  double lower, upper;
  SprtBounds(config, lower, upper);
  EXPECT_NEAR(lower, -2.944439, 1e-6);
  EXPECT_NEAR(upper, 2.944439, 1e-6);
  EXPECT_EQ(SprtDecide(2.95, config), SprtDecision::kAcceptH1);
  EXPECT_EQ(SprtDecide(-2.95, config), SprtDecision::kAcceptH0);
  EXPECT_EQ(SprtDecide(2.9, config), SprtDecision::kContinue);
}

TEST(BradleyTerryTest, TwoPlayersHaveTheClosedForm) {
  // With one virtual draw the score is (3 + 0.5) / (4 + 1).
  const std::vector<Rating> r = BradleyTerry({"a", "b"}, {{0, 1, 3, 0, 1}}, 1, 100);
  EXPECT_NEAR(r[1].elo, 100, 1e-9);
  EXPECT_NEAR(r[0].elo, 100 + EloFromScore(0.7), 1e-6);
  EXPECT_EQ(r[1].ci95, 0);
  EXPECT_GT(r[0].ci95, 0);
  EXPECT_EQ(r[0].games, 4);
  EXPECT_NEAR(r[0].score, 0.75, 1e-12);
}

TEST(BradleyTerryTest, RecoversRatingsFromExpectedResults) {
  // 2000 games per pair with the results the logistic model expects of
  // players rated 0, 100 and 250.
  const double truth[3] = {0, 100, 250};
  std::vector<PairResults> pairs;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      const int wins = int(std::lround(2000 * ScoreFromElo(truth[i] - truth[j])));
      pairs.push_back({i, j, wins, 0, 2000 - wins});
    }
  const std::vector<Rating> r = BradleyTerry({"x", "y", "z"}, pairs, 0);
  EXPECT_EQ(r[0].elo, 0);
  EXPECT_NEAR(r[1].elo, 100, 2);
  EXPECT_NEAR(r[2].elo, 250, 2);
  EXPECT_LT(r[1].ci95, 30);
}

TEST(BradleyTerryTest, RejectsPlayersWithoutGames) {
  EXPECT_THROW(BradleyTerry({"a", "b", "c"}, {{0, 1, 1, 1, 1}}, 0), Error);
}

// eval/ratings.json has one writer and one reader: what one writes the other
// reads back, and a list with a field missing or of another type is refused.
TEST(RatingsJsonTest, RoundTripsAndRefusesWhatItDidNotWrite) {
  const std::vector<Rating> written = {{"ab:depth=2", 0, 0, 40, 0.5, -1}, {"step 300", -35.5, 61.25, 20, 0.45, 0.75}};
  const std::optional<std::vector<Rating>> read = ParseRatingsJson(RatingsJson(written).dump());
  ASSERT_TRUE(read.has_value());
  ASSERT_EQ(read->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*read)[i].name, written[i].name);
    EXPECT_EQ((*read)[i].elo, written[i].elo);
    EXPECT_EQ((*read)[i].ci95, written[i].ci95);
    EXPECT_EQ((*read)[i].games, written[i].games);
    EXPECT_EQ((*read)[i].score, written[i].score);
    EXPECT_EQ((*read)[i].hours, written[i].hours);
  }
  EXPECT_FALSE(RatingsJson(written)[0].contains("hours"));  // a ladder player has none
  EXPECT_TRUE(ParseRatingsJson("[]").has_value());
  for (const char* bad :
       {"", "{}", "[1]", R"([{"elo":0,"ci95":0,"games":1,"score":1}])",
        R"([{"name":"x","elo":"0","ci95":0,"games":1,"score":1}])", R"([{"name":"x","elo":0,"games":1,"score":1}])",
        R"([{"name":"x","elo":0,"ci95":0,"games":1.5,"score":1}])",
        R"([{"name":"x","elo":0,"ci95":0,"games":1,"score":1,"hours":"1"}])", "[{\"name\":"})
    EXPECT_FALSE(ParseRatingsJson(bad).has_value()) << bad;
}

}  // namespace
}  // namespace loa
