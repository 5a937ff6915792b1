#pragma once
// Move notation: "b1-d3", "d1xa4" (also "d1:a4", any case), "b1d3" (the
// notation of UCI, cutechess and PlayStrategy: no mark), "pass", and
// OpenSpiel's action ids ("1162"); trailing marks ("+", "#", "!", "?") are
// read and dropped.

#include <string>
#include <string_view>

#include "core/move.h"
#include "core/position.h"

namespace loa {

// Returns "b1-d3", "d1xa4" or "pass"; m must not be null.
std::string FormatMove(Move m);
// Returns "b1d3", "d1a4" or "pass" (UCI's notation); m must not be null.
std::string FormatMoveUnmarked(Move m);

// Returns OpenSpiel's lines_of_action action id of m: ((from * 64 + to) * 2
// + capture), a square numbered rank * 8 + file from a1 = 0; m must be a
// regular move (OpenSpiel has no pass).
int OpenSpielAction(Move m);

// How ParseMove treats the separator of FROM-TO.
enum class CaptureMark {
  kIgnore,  // '-', 'x' and ':' alike: the squares decide (the text protocol)
  kCheck,   // 'x' or ':' exactly when the move captures (game records)
};

// Parses a move and checks it is legal in pos; throws ParseError naming the
// move and the position when it is malformed or illegal, or, with
// CaptureMark::kCheck, when its separator disagrees with the board (a move
// without a mark has none to disagree).
Move ParseMove(std::string_view text, const Position& pos, CaptureMark mark = CaptureMark::kIgnore);

}  // namespace loa
