#pragma once
// How long the engine thinks about one move, from the clock of its side.

#include <cstdint>

#include "mcts/search_params.h"

namespace loa {

// Returns the seconds to spend on the next move, given the main time left,
// the byo-yomi period and its moves (0: one move per period), the increment
// a move adds (UCI's and xboard's) and the moves to the next time control
// (0: none given), all zero meaning untimed (returns 0: the caller uses its
// own limits). A share 1 / moves_to_go (params.time_moves_to_go where none
// is given or it is more) of the main time plus most of a byo-yomi move and
// of the increment, less params.move_overhead_seconds; never more than half
// of what is left.
double MoveTimeBudget(double main_seconds, double byoyomi_seconds, int byoyomi_stones, const SearchParams& params,
                      double increment_seconds = 0, int moves_to_go = 0);

// Returns the most a move may take when the search is unsure at its budget
// (SearchLimits::max_seconds): the budget times 1 + params.time_extension,
// never more than a quarter of the main time left beyond the budget; the
// budget itself when the extension is 0 or the clock untimed.
double MoveTimeLimit(double budget, double main_seconds, const SearchParams& params);

// Whether a search at its budget is unsure enough to go on (the time
// manager's extension): the second most visited move of the root has at
// least kUnsureVisitShare of the first's visits, or the first has fewer
// than kSureMinVisits (too few to judge), so that a little more search may
// still change the move.
constexpr double kUnsureVisitShare = 0.5;
constexpr uint32_t kSureMinVisits = 16;
bool UnsureAtBudget(uint32_t first_visits, uint32_t second_visits);

// Whether a search at its budget goes on because its value has fallen
// (Stockfish's "falling eval", which spends more time when the score drops):
// the root's value is at least `drop` below the value this side's previous
// search ended with. False when drop is 0 or there is no previous value
// (NaN).
bool FallingValue(float previous_value, float value, float drop);

}  // namespace loa
