#pragma once
// loaz bench ab (app/bench_ab.cpp).

#include <string>
#include <vector>

#include "core/game.h"

namespace loa::app {

// The fixed position set of `loaz bench ab`: count games, deterministic.
std::vector<Game> BenchPositions(int count);

// For each `ab` spec: nodes a second and the mean depth finished in
// `seconds` a position, then the signature (nodes summed over the set at
// `depth`, one thread) and the mean time to that depth. Returns 0.
int BenchAb(const std::vector<std::string>& specs, int positions, double seconds, int depth);

}  // namespace loa::app
