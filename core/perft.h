#pragma once
// Perft: the number of move sequences of a given length, the rules' checksum.

#include <cstdint>
#include <utility>
#include <vector>

#include "core/position.h"

namespace loa {

// Returns the number of move sequences of exactly `depth` plies from pos. A
// position where a side is united has no moves; one where the side to move
// has no move has one, the pass. Repetition and the move cap are ignored.
uint64_t Perft(const Position& pos, int depth);

// Returns Perft(pos.Apply(m), depth - 1) for each root move m, in generation
// order, computed by `threads` threads (>= 1); depth must be >= 1.
std::vector<std::pair<Move, uint64_t>> PerftDivide(const Position& pos, int depth, int threads);

}  // namespace loa
