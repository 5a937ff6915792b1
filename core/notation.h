#pragma once
// Move notation: "b1-d3", "d1xa4" (also "d1:a4", any case) and "pass".

#include <string>
#include <string_view>

#include "core/move.h"
#include "core/position.h"

namespace loa {

// Returns "b1-d3", "d1xa4" or "pass"; m must not be null.
std::string FormatMove(Move m);

// Parses a move and checks it is legal in pos; throws ParseError naming the
// move and the position when it is malformed or illegal. The separator
// ('-', 'x' or ':') is not checked against the board: the squares decide.
Move ParseMove(std::string_view text, const Position& pos);

}  // namespace loa
