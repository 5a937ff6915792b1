#pragma once
// Fitting the baseline's weights to data (Texel tuning): the evaluation's
// features as a row of numbers, a logistic regression of targets on them,
// and the move categories' transition probabilities from a policy. Used by
// `loaz tune-eval` (docs/BASELINE.md); pure functions, tested on data of
// known weights.

#include <cstddef>
#include <functional>
#include <vector>

#include "alphabeta/move_category.h"
#include "alphabeta/static_eval.h"

namespace loa::ab {

inline constexpr int kNumEvalTerms = int(sizeof(kEvalTerms) / sizeof(kEvalTerms[0]));

// Appends pos's features, side to move minus the other, in kEvalTerms'
// order (the tempo term is 1): StaticScore is their dot product with the
// weights, divided by the scale. Tapered: each feature twice, times the
// share of the named weights and then of the late ones (kNumEvalTerms more).
void AppendFeatureRow(const Position& pos, bool tapered, std::vector<double>& rows);

// A logistic regression: p(row) = 1 / (1 + exp(-row . beta)).
struct LogisticFit {
  std::vector<double> beta;
  double train_loss = 0;    // mean cross-entropy on the rows fitted
  double holdout_loss = 0;  // on the rows held out
};

// Fits beta to targets in [0, 1] (soft targets allowed) by Newton's method
// with an L2 penalty `l2` per row, on the rows whose holdout flag is false;
// rows has `columns` numbers per row. progress(iteration, train loss) is
// called after each iteration.
LogisticFit FitLogistic(const std::vector<double>& rows, int columns, const std::vector<float>& targets,
                        const std::vector<char>& holdout, double l2, int iterations,
                        const std::function<void(int, double)>& progress = nullptr);

// Returns the mean cross-entropy of p = sigmoid(row . beta) against targets
// over the rows whose holdout flag equals `held_out`.
double LogisticLoss(const std::vector<double>& rows, int columns, const std::vector<double>& beta,
                    const std::vector<float>& targets, const std::vector<char>& holdout, bool held_out);

// Integer weights whose StaticScore (divided by `scale`) is beta's logit
// times points_per_logit.
// A tapered fit (2 kNumEvalTerms numbers) gives tapered weights.
EvalWeights WeightsFromFit(const std::vector<double>& beta, double points_per_logit, int scale);

// Counts, per category, how often it is available and how much of a
// player's choice falls on it; the ratio is its transition probability.
class CategoryCounter {
 public:
  // Adds one position: choice[i] is the probability of the i-th move of
  // pos.GenerateMoves (a policy, or 1 for the move played and 0 elsewhere).
  void Add(const Position& pos, const float* choice);
  // The model: each category's chosen mass over its availability (a
  // category never seen gets the least seen probability), and the reference
  // at the choice-weighted mean log probability, so that the move a player
  // would choose costs a ply on average.
  CategoryModel Model() const;

 private:
  double available_[kNumMoveCategories] = {};
  double chosen_[kNumMoveCategories] = {};
};

}  // namespace loa::ab
