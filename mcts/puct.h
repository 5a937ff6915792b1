#pragma once
// The PUCT formula's pieces, shared by selection and policy-target pruning.

#include <algorithm>
#include <cmath>

#include "mcts/search_params.h"

namespace loa {

// Returns the exploration factor c(N) for a parent whose children hold
// `visits` visits (AlphaZero's growing cpuct; see SearchParams).
inline double ExplorationFactor(const SearchParams& params, double visits) {
  // log(1 + x), x = (visits + 1) / base: below 1/16 the series to x^4 is
  // within 2e-7 (x^5 / 5), and costs a fraction of std::log, which selection
  // would otherwise call at every node it passes.
  const double x = (visits + 1) / params.cpuct_base;
  const double log1p = x < 0.0625 ? x * (1 - x * (0.5 - x * (1.0 / 3 - x * 0.25))) : std::log1p(x);
  return params.cpuct_init + params.cpuct_factor * log1p;
}

// KataGo's exploration scaled by the spread of the values below a node
// (cpuctUtilityStdevScale, prior 0.4, prior weight 2): the factor
// 1 + scale (stdev / 0.4 - 1), where stdev is that of the node's `visits`
// values (their mean and mean square) shrunk toward 0.4 as if two more
// visits of that spread had been seen. A node whose children disagree
// explores more; one whose every line scores alike, less.
inline double StdevExplorationScale(double scale, double visits, double mean, double mean_square) {
  constexpr double kPrior = 0.4, kPriorWeight = 2;
  if (visits < 2) return 1;
  const double mean_sq = mean * mean;
  const double variance = ((mean_sq + kPrior * kPrior) * kPriorWeight + std::max(mean_square, mean_sq) * visits) /
                              (kPriorWeight + visits - 1) -
                          mean_sq;
  return 1 + scale * (std::sqrt(std::max(0.0, variance)) / kPrior - 1);
}

}  // namespace loa
