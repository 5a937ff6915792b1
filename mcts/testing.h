#pragma once
// The testing header of mcts/: what tests and benchmarks share, never
// included by the program (tests/app/layers_test.py holds every
// */testing.h to tests/ and bench/).

#include <algorithm>
#include <vector>

#include "mcts/selfplay_driver.h"

namespace loa::testing {

// Steps driver until every game is played (its games.count must be >= 0);
// returns them in order of index.
inline std::vector<SelfPlayGame> PlayAll(SelfPlayDriver& driver) {
  std::vector<SelfPlayGame> games;
  while (!driver.done()) driver.Step(&games);
  std::sort(games.begin(), games.end(), [](const SelfPlayGame& a, const SelfPlayGame& b) { return a.index < b.index; });
  return games;
}

}  // namespace loa::testing
