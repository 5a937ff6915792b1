#pragma once
// The PUCT formula's pieces, shared by selection and policy-target pruning.

#include <cmath>

#include "mcts/params.h"

namespace loa {

// Returns the exploration factor c(N) for a parent whose children hold
// `visits` visits (AlphaZero's growing cpuct; see SearchParams).
inline double ExplorationFactor(const SearchParams& params, double visits) {
  return params.cpuct_init + params.cpuct_factor * std::log((visits + params.cpuct_base + 1) / params.cpuct_base);
}

}  // namespace loa
