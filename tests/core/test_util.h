#pragma once
// Helpers shared by the core tests.

#include <random>
#include <string>
#include <vector>

#include "core/position.h"

namespace loa::testing {

// Returns the position string parsed, failing the test on a parse error.
inline Position P(const std::string& fen) { return Position::FromString(fen); }

// Returns positions met on random playouts from both starts (fixed seed).
inline std::vector<Position> RandomPositions(int games, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Position> out;
  for (int g = 0; g < games; ++g) {
    Position pos = Position::Start(g % 2 ? StartKind::kScrambled : StartKind::kStandard);
    for (int ply = 0; ply < 200; ++ply) {
      out.push_back(pos);
      if (pos.IsUnited(kBlack) || pos.IsUnited(kWhite)) break;
      MoveList moves;
      pos.GenerateMoves(moves);
      pos = pos.Apply(moves[std::uniform_int_distribution<int>(0, moves.size() - 1)(rng)]);
    }
  }
  return out;
}

}  // namespace loa::testing
