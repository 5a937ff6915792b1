#include "alphabeta/tuning.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "core/bitboard.h"

namespace loa::ab {
namespace {

double Sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// Cross-entropy of a prediction p against a soft target y, with p kept off 0 and 1.
double CrossEntropy(double p, double y) {
  p = std::clamp(p, 1e-12, 1 - 1e-12);
  return -(y * std::log(p) + (1 - y) * std::log(1 - p));
}

}  // namespace

void AppendFeatureRow(const Position& pos, bool tapered, std::vector<double>& rows) {
  const Color us = pos.side_to_move();
  const SideFeatures a = ComputeFeatures(pos, us), b = ComputeFeatures(pos, Opponent(us));
  double share[2] = {1, 0};
  if (tapered) {
    const int on_board = std::clamp(PopCount(pos.occupied()), kTaperEmpty, kTaperFull);
    share[0] = double(on_board - kTaperEmpty) / (kTaperFull - kTaperEmpty);
    share[1] = 1 - share[0];
  }
  for (int part = 0; part < 1 + tapered; ++part)
    for (const EvalTerm& t : kEvalTerms)
      rows.push_back(share[part] * (t.feature ? double(a.*t.feature - b.*t.feature) : 1.0));
}

double LogisticLoss(const std::vector<double>& rows, int columns, const std::vector<double>& beta,
                    const std::vector<float>& targets, const std::vector<char>& holdout, bool held_out) {
  double sum = 0;
  size_t count = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (bool(holdout[i]) != held_out) continue;
    double z = 0;
    for (int k = 0; k < columns; ++k) z += rows[i * columns + k] * beta[k];
    sum += CrossEntropy(Sigmoid(z), targets[i]);
    ++count;
  }
  return count ? sum / double(count) : 0;
}

LogisticFit FitLogistic(const std::vector<double>& rows, int columns, const std::vector<float>& targets,
                        const std::vector<char>& holdout, double l2, int iterations,
                        const std::function<void(int, double)>& progress) {
  // Columns are standardised for the solve, so that features of very
  // different ranges (areas, hundredths) condition the Hessian alike.
  const size_t n = targets.size();
  Eigen::VectorXd scale = Eigen::VectorXd::Ones(columns);
  for (int k = 0; k < columns; ++k) {
    double sq = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
      if (!holdout[i]) sq += rows[i * columns + k] * rows[i * columns + k], ++m;
    if (m && sq > 0) scale[k] = std::sqrt(sq / double(m));
  }
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(columns);
  size_t fitted = 0;
  for (size_t i = 0; i < n; ++i) fitted += !holdout[i];
  for (int iteration = 1; iteration <= iterations; ++iteration) {
    Eigen::VectorXd gradient = l2 * double(fitted) * beta;
    Eigen::MatrixXd hessian = l2 * double(fitted) * Eigen::MatrixXd::Identity(columns, columns);
    Eigen::VectorXd x(columns);
    for (size_t i = 0; i < n; ++i) {
      if (holdout[i]) continue;
      for (int k = 0; k < columns; ++k) x[k] = rows[i * columns + k] / scale[k];
      const double p = Sigmoid(x.dot(beta));
      gradient += (p - targets[i]) * x;
      hessian.selfadjointView<Eigen::Lower>().rankUpdate(x, std::max(p * (1 - p), 1e-9));
    }
    hessian.triangularView<Eigen::Upper>() = hessian.transpose();
    beta -= hessian.ldlt().solve(gradient);
    if (progress) {
      std::vector<double> unscaled(columns);
      for (int k = 0; k < columns; ++k) unscaled[k] = beta[k] / scale[k];
      progress(iteration, LogisticLoss(rows, columns, unscaled, targets, holdout, false));
    }
  }
  LogisticFit fit;
  fit.beta.resize(columns);
  for (int k = 0; k < columns; ++k) fit.beta[k] = beta[k] / scale[k];
  fit.train_loss = LogisticLoss(rows, columns, fit.beta, targets, holdout, false);
  fit.holdout_loss = LogisticLoss(rows, columns, fit.beta, targets, holdout, true);
  return fit;
}

EvalWeights WeightsFromFit(const std::vector<double>& beta, double points_per_logit, int scale) {
  EvalWeights w;
  w.scale = scale;
  w.tapered = beta.size() == size_t(2 * kNumEvalTerms);
  for (int k = 0; k < kNumEvalTerms; ++k) {
    w.*kEvalTerms[k].weight = int(std::lround(beta[k] * points_per_logit * scale));
    if (w.tapered) w.late[k] = int(std::lround(beta[kNumEvalTerms + k] * points_per_logit * scale));
  }
  return w;
}

void CategoryCounter::Add(const Position& pos, const float* choice) {
  MoveList moves;
  pos.GenerateMoves(moves);
  if (moves.size() == 1 && moves[0].is_pass()) return;
  const MoveCategorizer categorizer(pos);
  for (int i = 0; i < moves.size(); ++i) {
    const int c = categorizer.Category(moves[i]);
    available_[c] += 1;
    chosen_[c] += choice[i];
  }
}

CategoryModel CategoryCounter::Model() const {
  CategoryModel model = CategoryModel::Uniform();
  double least = 1;
  for (int c = 0; c < kNumMoveCategories; ++c)
    if (available_[c] > 0 && chosen_[c] > 0) least = std::min(least, chosen_[c] / available_[c]);
  double log_sum = 0, mass = 0;
  for (int c = 0; c < kNumMoveCategories; ++c) {
    const double p = available_[c] > 0 && chosen_[c] > 0 ? chosen_[c] / available_[c] : least;
    model.probability[c] = float(std::clamp(p, 1e-6, 1.0));
    log_sum += chosen_[c] * std::log(model.probability[c]);
    mass += chosen_[c];
  }
  model.reference = float(mass > 0 ? std::clamp(std::exp(log_sum / mass), 1e-4, 0.99) : 0.1);
  return model;
}

}  // namespace loa::ab
