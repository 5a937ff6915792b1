#pragma once
// Ratings from game results: Elo with a 95% interval from one match, the
// sequential probability ratio test (GSPRT, as fishtest runs it), and
// Bradley-Terry maximum likelihood over a round robin.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loa {

// Returns the expected score of a player rated `elo` above its opponent
// (the logistic Elo model).
double ScoreFromElo(double elo);

// Returns the Elo difference at which `score` (0 < score < 1) is expected.
double EloFromScore(double score);

// An Elo difference measured from wins, draws and losses.
struct EloEstimate {
  double score = 0.5;  // (wins + draws / 2) / games
  double elo = 0;      // the difference at that score
  double ci95 = 0;     // half the width of the 95% interval of elo
};

// Returns the Elo difference and its 95% interval from one side's results,
// the interval from the per-game score's variance (as cutechess-cli). A
// score of 0 or 1 would be infinite: it is moved a quarter of a game
// towards the middle (kPerfectScoreShift).
EloEstimate EstimateElo(int wins, int draws, int losses);

// The parameters of a sequential test: H0 says the Elo difference is elo0,
// H1 says elo1; alpha and beta are the error rates.
struct SprtConfig {
  double elo0 = 0, elo1 = 5, alpha = 0.05, beta = 0.05;
};

enum class SprtDecision { kContinue, kAcceptH0, kAcceptH1 };

// Returns the log-likelihood ratio of H1 against H0 for the trinomial
// results: the generalised SPRT of fishtest (M. Van den Bergh, "A practical
// introduction to the GSPRT"), each hypothesis's likelihood maximised over
// the win/draw/loss distributions whose expected score matches its Elo.
// An empty class counts as 0.001 games (kEmptyCountEpsilon), as in fishtest.
double SprtLlr(int wins, int draws, int losses, double elo0, double elo1);

// Returns the decision of the test at this LLR: the bounds are
// log(beta / (1 - alpha)) and log((1 - beta) / alpha) (Wald 1945).
SprtDecision SprtDecide(double llr, const SprtConfig& config);

// Returns the lower and upper LLR bounds of the test.
void SprtBounds(const SprtConfig& config, double& lower, double& upper);

// Results between two players of a round robin, from i's side.
struct PairResults {
  int i = 0, j = 0;
  int wins = 0, draws = 0, losses = 0;
};

// One line of a ratings table.
struct Rating {
  std::string name;
  double elo = 0;   // the anchor's is the anchor Elo
  double ci95 = 0;  // half-width of the 95% interval relative to the anchor (0 for it)
  int games = 0;
  double score = 0;   // points / games
  double hours = -1;  // a run's checkpoint: its hours of run time (-1: not one)
};

// A ratings list as JSON, a run's eval/ratings.json (docs/FORMATS.md): an
// array of {"name", "elo", "ci95", "games", "score"} objects, with "hours"
// where a rating has them. Its one writer and its one reader.
nlohmann::json RatingsJson(const std::vector<Rating>& ratings);

// Returns the ratings of a text RatingsJson wrote, or nothing where the
// text is not a list of ratings (a field missing or of another type).
std::optional<std::vector<Rating>> ParseRatingsJson(const std::string& text);

// Returns the Bradley-Terry (logistic Elo) maximum-likelihood ratings of the
// named players from pairwise results, the anchor fixed at anchor_elo; each
// pair that met also gets kPriorDraws virtual draws so that a perfect score
// stays finite. Solved by Newton's method with Eigen; the intervals come
// from the inverse of the observed information. Throws Error when the
// players do not form one connected set of games.
std::vector<Rating> BradleyTerry(const std::vector<std::string>& names, const std::vector<PairResults>& results,
                                 int anchor, double anchor_elo = 0);

}  // namespace loa
