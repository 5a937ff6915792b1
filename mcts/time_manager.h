#pragma once
// How long the engine thinks about one move, from the clock of its side.

#include "mcts/search_params.h"

namespace loa {

// Returns the seconds to spend on the next move, given the main time left,
// the byo-yomi period and its moves (0: one move per period), all zero
// meaning untimed (returns 0: the caller uses its own limits). A share
// 1 / params.time_moves_to_go of the main time plus most of a byo-yomi move,
// less params.move_overhead_seconds; never more than half of what is left.
double MoveTimeBudget(double main_seconds, double byoyomi_seconds, int byoyomi_stones, const SearchParams& params);

}  // namespace loa
