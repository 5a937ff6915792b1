#pragma once
// Random play for tests, benchmarks and tools: uniformly random legal moves
// drawn from the project's Rng (core/random.h), so that a seed gives the
// same positions and games on every platform.

#include <cstdint>
#include <vector>

#include "core/game.h"
#include "core/move.h"
#include "core/position.h"
#include "core/random.h"

namespace loa {

// Returns one of moves (which must not be empty), uniformly at random.
inline Move RandomMove(const MoveList& moves, Rng& rng) { return moves[rng.Below(int(moves.size()))]; }

// Returns `count` positions met along random games, none of them over: each
// game starts from the standard position (every other one from Scrambled
// Eggs when both_starts) on the board of `size`, its positions are taken
// one by one until it ends or reaches max_plies, and then a new game starts.
std::vector<Position> RandomPositions(int count, uint64_t seed, bool both_starts = false, int max_plies = 200,
                                      int size = kBoardSize);

}  // namespace loa
