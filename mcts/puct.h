#pragma once
// The PUCT formula's pieces, shared by selection and policy-target pruning.

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

}  // namespace loa
