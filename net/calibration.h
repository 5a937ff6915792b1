#pragma once
// The positions on which an int8 net measures the range of each trunk
// convolution's input (net/cpu_net.h): every distinct position of the
// expert games in tests/data/games (552), compiled in so that a net
// quantizes the same way wherever it is loaded. Real play covers the
// openings, middle games and endings that self-play reaches; random
// positions would not. net/calibration_positions.inc is generated from the
// games; a test replays them and checks that it still matches.

#include <vector>

#include "core/position.h"

namespace loa {

// Returns the calibration positions, in the order of the games. Thread-safe.
const std::vector<Position>& CalibrationPositions();

}  // namespace loa
