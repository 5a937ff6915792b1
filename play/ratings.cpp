#include "play/ratings.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace loa {
namespace {

// The two-sided 95% quantile of the normal distribution.
constexpr double kZ95 = 1.959963984540054;
// How far a perfect score is moved towards the middle, in games.
constexpr double kPerfectScoreShift = 0.25;
// Empty result classes count as this many games in the GSPRT, as fishtest
// does (results_to_pdf), so that the maximum-likelihood problem is regular.
constexpr double kEmptyCountEpsilon = 1e-3;
// Virtual draws added to each pair that met (BayesElo adds a similar prior
// of virtual draws); they keep a perfect score finite.
constexpr double kPriorDraws = 1.0;
constexpr int kNewtonIterations = 100;
constexpr double kNewtonTolerance = 1e-10;

// Converts between Elo and the natural logistic scale.
constexpr double kEloPerNatural = 400.0 / 2.302585092994046;

// Returns the distribution q over outcomes x (probabilities p, all > 0)
// closest in likelihood to p with expected score s: q_i = p_i / (1 +
// lambda (x_i - s)), lambda found by bisection (the sum is decreasing in it).
void MaximumLikelihoodWithMean(const double* x, const double* p, int k, double s, double* q) {
  double low = -1.0 / (1.0 - s), high = 1.0 / s;  // where every 1 + lambda (x_i - s) > 0
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double lambda = (low + high) / 2;
    double f = 0;
    for (int i = 0; i < k; ++i) f += p[i] * (x[i] - s) / (1 + lambda * (x[i] - s));
    (f > 0 ? low : high) = lambda;
  }
  const double lambda = (low + high) / 2;
  double total = 0;
  for (int i = 0; i < k; ++i) total += q[i] = p[i] / (1 + lambda * (x[i] - s));
  for (int i = 0; i < k; ++i) q[i] /= total;
}

}  // namespace

double ScoreFromElo(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

double EloFromScore(double score) { return -400.0 * std::log10(1.0 / score - 1.0); }

EloEstimate EstimateElo(int wins, int draws, int losses) {
  EloEstimate e;
  const int n = wins + draws + losses;
  if (n == 0) return e;
  e.score = (wins + 0.5 * draws) / n;
  const double shift = kPerfectScoreShift / n;
  const double score = std::clamp(e.score, shift, 1.0 - shift);
  double variance =
      (wins * std::pow(1.0 - e.score, 2) + draws * std::pow(0.5 - e.score, 2) + losses * std::pow(e.score, 2)) / n;
  if (variance <= 0) variance = score * (1.0 - score);
  const double margin = kZ95 * std::sqrt(variance / n);
  const double low = std::clamp(score - margin, shift, 1.0 - shift);
  const double high = std::clamp(score + margin, shift, 1.0 - shift);
  e.elo = EloFromScore(score) + 0.0;  // no "-0"
  e.ci95 = (EloFromScore(high) - EloFromScore(low)) / 2;
  return e;
}

double SprtLlr(int wins, int draws, int losses, double elo0, double elo1) {
  const double x[3] = {1.0, 0.5, 0.0};
  double counts[3] = {double(wins), double(draws), double(losses)};
  double n = 0;
  for (double& c : counts) n += c = std::max(c, kEmptyCountEpsilon);
  double p[3], q0[3], q1[3];
  for (int i = 0; i < 3; ++i) p[i] = counts[i] / n;
  MaximumLikelihoodWithMean(x, p, 3, ScoreFromElo(elo0), q0);
  MaximumLikelihoodWithMean(x, p, 3, ScoreFromElo(elo1), q1);
  double llr = 0;
  for (int i = 0; i < 3; ++i) llr += counts[i] * std::log(q1[i] / q0[i]);
  return llr;
}

void SprtBounds(const SprtConfig& config, double& lower, double& upper) {
  lower = std::log(config.beta / (1.0 - config.alpha));
  upper = std::log((1.0 - config.beta) / config.alpha);
}

SprtDecision SprtDecide(double llr, const SprtConfig& config) {
  double lower, upper;
  SprtBounds(config, lower, upper);
  if (llr >= upper) return SprtDecision::kAcceptH1;
  if (llr <= lower) return SprtDecision::kAcceptH0;
  return SprtDecision::kContinue;
}

namespace {

// Throws Error unless every player is linked to the anchor through games.
void CheckConnected(const std::vector<std::string>& names, const Eigen::MatrixXd& games, int anchor) {
  const int n = int(names.size());
  std::vector<int> reached{anchor};
  std::vector<bool> seen(n, false);
  seen[anchor] = true;
  for (size_t k = 0; k < reached.size(); ++k)
    for (int j = 0; j < n; ++j)
      if (!seen[j] && games(reached[k], j) > 0) seen[j] = true, reached.push_back(j);
  for (int j = 0; j < n; ++j)
    if (!seen[j]) throw Error("ratings: player '" + names[j] + "' has no games linking it to the anchor");
}

// Maximises the Bradley-Terry log-likelihood over every strength but the
// anchor's (kept at 0) by Newton's method; returns the strengths on the
// natural logistic scale and the observed information of the free ones.
Eigen::VectorXd NewtonSolve(const Eigen::MatrixXd& points, const Eigen::MatrixXd& games, const std::vector<int>& free,
                            Eigen::MatrixXd& information) {
  const int n = int(points.rows()), m = int(free.size());
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(n);
  information = Eigen::MatrixXd::Zero(m, m);
  for (int iteration = 0; iteration < kNewtonIterations; ++iteration) {
    Eigen::VectorXd gradient = Eigen::VectorXd::Zero(n);
    Eigen::MatrixXd full = Eigen::MatrixXd::Zero(n, n);  // minus the Hessian
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        if (i == j || games(i, j) == 0) continue;
        const double p = 1.0 / (1.0 + std::exp(theta(j) - theta(i)));
        gradient(i) += points(i, j) - games(i, j) * p;
        full(i, i) += games(i, j) * p * (1 - p);
        full(i, j) -= games(i, j) * p * (1 - p);
      }
    Eigen::VectorXd g(m);
    for (int a = 0; a < m; ++a) {
      g(a) = gradient(free[a]);
      for (int b = 0; b < m; ++b) information(a, b) = full(free[a], free[b]);
    }
    const Eigen::VectorXd step = information.ldlt().solve(g);
    for (int a = 0; a < m; ++a) theta(free[a]) += step(a);
    if (step.norm() < kNewtonTolerance) break;
  }
  return theta;
}

}  // namespace

std::vector<Rating> BradleyTerry(const std::vector<std::string>& names, const std::vector<PairResults>& results,
                                 int anchor, double anchor_elo) {
  const int n = int(names.size());
  if (anchor < 0 || anchor >= n) throw Error("ratings: anchor index out of range");
  std::vector<Rating> table(n);
  Eigen::MatrixXd points = Eigen::MatrixXd::Zero(n, n), games = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) table[i].name = names[i];
  for (const PairResults& r : results) {
    const int played = r.wins + r.draws + r.losses;
    points(r.i, r.j) += r.wins + 0.5 * r.draws;
    points(r.j, r.i) += r.losses + 0.5 * r.draws;
    games(r.i, r.j) += played;
    games(r.j, r.i) += played;
    table[r.i].games += played;
    table[r.j].games += played;
    table[r.i].score += r.wins + 0.5 * r.draws;
    table[r.j].score += r.losses + 0.5 * r.draws;
  }
  CheckConnected(names, games, anchor);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && games(i, j) > 0) {
        games(i, j) += kPriorDraws;
        points(i, j) += kPriorDraws / 2;
      }
  std::vector<int> free;
  for (int i = 0; i < n; ++i)
    if (i != anchor) free.push_back(i);
  Eigen::MatrixXd information;
  const Eigen::VectorXd theta = NewtonSolve(points, games, free, information);
  const Eigen::MatrixXd covariance = information.inverse();
  for (int i = 0; i < n; ++i) {
    table[i].elo = anchor_elo + theta(i) * kEloPerNatural;
    if (table[i].games > 0) table[i].score /= table[i].games;
  }
  for (size_t a = 0; a < free.size(); ++a) table[free[a]].ci95 = kZ95 * std::sqrt(covariance(a, a)) * kEloPerNatural;
  return table;
}

nlohmann::json RatingsJson(const std::vector<Rating>& ratings) {
  nlohmann::json list = nlohmann::json::array();
  for (const Rating& r : ratings) {
    nlohmann::json entry = {{"name", r.name}, {"elo", r.elo}, {"ci95", r.ci95}, {"games", r.games}, {"score", r.score}};
    if (r.hours >= 0) entry["hours"] = r.hours;
    list.push_back(std::move(entry));
  }
  return list;
}

std::optional<std::vector<Rating>> ParseRatingsJson(const std::string& text) {
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, false);
  if (list.is_discarded() || !list.is_array()) return std::nullopt;
  std::vector<Rating> ratings;
  for (const nlohmann::json& entry : list) {
    const auto number = [&](const char* key) { return entry.contains(key) && entry[key].is_number(); };
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() || !number("elo") ||
        !number("ci95") || !entry.contains("games") || !entry["games"].is_number_integer() || !number("score") ||
        (entry.contains("hours") && !number("hours")))
      return std::nullopt;
    ratings.push_back({entry["name"].get<std::string>(), entry["elo"].get<double>(), entry["ci95"].get<double>(),
                       entry["games"].get<int>(), entry["score"].get<double>(), entry.value("hours", -1.0)});
  }
  return ratings;
}

}  // namespace loa
