#pragma once
// Other programs' position strings (docs/FORMATS.md, "Positions"): the FENs
// of cutechess and PlayStrategy and OpenSpiel's state string, read wherever
// a position is read and written on request.

#include <string>
#include <string_view>

#include "core/position.h"

namespace loa {

enum class PositionFormat {
  kLoaz,          // "1bbbbbb1/w6w/.../1bbbbbb1 b" (docs/RULES.md)
  kCutechess,     // "1pppppp1/P6P/.../1pppppp1 b - - 0 1": 'p' Black, who moves first
  kPlayStrategy,  // "1LLLLLL1/l6l/.../1LLLLLL1 w - - 0 1": 'L' and 'w' the first player
  kOpenSpiel,     // "8.xxxxxx.\n7o......o\n... abcdefgh\n\n\nCurrent player: x"
};

// "loaz", "cutechess", "playstrategy", "openspiel".
const char* PositionFormatName(PositionFormat f);
// Parses a format's name; throws ParseError naming it and the known ones.
PositionFormat ParsePositionFormat(std::string_view name);

// Returns pos written in format f.
std::string FormatPosition(const Position& pos, PositionFormat f);

// Returns the format of position text, told by its piece letters: b/w
// (LOAZero), p/P (cutechess), L/l (PlayStrategy), x/o with "Current player"
// (OpenSpiel). Throws ParseError when the letters are of none or of two.
PositionFormat DetectPositionFormat(std::string_view text);

// Parses a position in any of the formats (DetectPositionFormat); the FENs'
// fields after the side to move are read and ignored. Throws ParseError
// naming the text and the fault.
Position ReadPosition(std::string_view text);

}  // namespace loa
