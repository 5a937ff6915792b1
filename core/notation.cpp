#include "core/notation.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/error.h"

namespace loa {
namespace {

// Returns the direction from `from` to `to` if they share a line, else -1.
int DirectionBetween(Square from, Square to) {
  const int df = FileOf(to) - FileOf(from), dr = RankOf(to) - RankOf(from);
  if (df == 0 && dr == 0) return -1;
  if (df != 0 && dr != 0 && df != dr && df != -dr) return -1;
  const int sf = (df > 0) - (df < 0), sr = (dr > 0) - (dr < 0);
  for (int d = 0; d < kNumDirections; ++d)
    if (kFileStep[d] == sf && kRankStep[d] == sr) return d;
  return -1;
}

// Returns the move of OpenSpiel's action id `digits` as "FROM-TO" or
// "FROMxTO" text, its capture bit the mark; throws ParseError past the ids.
std::string OpenSpielMoveText(const std::string& digits, const std::string& where) {
  constexpr int kActions = kNumSquares * kNumSquares * 2;
  if (digits.size() > 4 || std::stoi(digits) >= kActions)
    throw ParseError(where + "not an OpenSpiel action id (0 to " + std::to_string(kActions - 1) + ")");
  const int id = std::stoi(digits);
  return SquareName(Square(id / 128)) + (id % 2 ? "x" : "-") + SquareName(Square(id / 2 % 64));
}

}  // namespace

int OpenSpielAction(Move m) { return (m.from() * kNumSquares + m.to()) * 2 + (m.is_capture() ? 1 : 0); }

std::string FormatMove(Move m) {
  if (m.is_pass()) return "pass";
  return SquareName(m.from()) + (m.is_capture() ? "x" : "-") + SquareName(m.to());
}

std::string FormatMoveUnmarked(Move m) {
  if (m.is_pass()) return "pass";
  return SquareName(m.from()) + SquareName(m.to());
}

Move ParseMove(std::string_view text, const Position& pos, CaptureMark mark) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  const std::string where = "move '" + Excerpt(text, 20) + "' in position '" + pos.ToString() + "': ";
  while (text.size() > 1 && std::string_view("+#!?").find(text.back()) != std::string_view::npos) text.remove_suffix(1);
  std::string lower(text);
  for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (!lower.empty() && std::all_of(lower.begin(), lower.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    const std::string move = OpenSpielMoveText(lower, where);
    try {
      return ParseMove(move, pos, CaptureMark::kCheck);
    } catch (const ParseError& e) {
      throw ParseError("OpenSpiel's action id " + lower + ", " + e.what());
    }
  }
  if (lower == "pass") {
    if (!pos.IsLegal(Move::Pass())) throw ParseError(where + "a pass is legal only with no other move");
    return Move::Pass();
  }
  // FROMTO without a mark is the notation of UCI, cutechess and PlayStrategy.
  const bool marked = lower.size() == 5;
  const char sep = marked ? lower[2] : 0;
  if ((lower.size() != 4 && !marked) || (marked && sep != '-' && sep != 'x' && sep != ':'))
    throw ParseError(where + "expected FROM-TO, FROMxTO, FROMTO or pass, e.g. b1-d3");
  const Square from = ParseSquare(lower.substr(0, 2)), to = ParseSquare(lower.substr(marked ? 3 : 2, 2));
  if (from == kNoSquare) throw ParseError(where + "'" + lower.substr(0, 2) + "' is not a square of the board");
  if (to == kNoSquare) throw ParseError(where + "'" + lower.substr(3, 2) + "' is not a square of the board");
  for (Square s : {from, to})
    if (!(pos.board() & SquareBB(s)))
      throw ParseError(where + "'" + SquareName(s) + "' is not a square of the " + std::to_string(pos.size()) + "x" +
                       std::to_string(pos.size()) + " board");
  const Color us = pos.side_to_move();
  if (!(pos.pieces(us) & SquareBB(from)))
    throw ParseError(where + "no " + (us == kBlack ? "black" : "white") + " piece on " + SquareName(from));
  const int dir = DirectionBetween(from, to);
  if (dir < 0) throw ParseError(where + "not along a rank, file or diagonal");
  const Move m = pos.MoveAt(from, Direction(dir));
  if (!m.is_null() && m.to() == to) {
    if (mark == CaptureMark::kCheck && marked && m.is_capture() != (sep != '-'))
      throw ParseError(where + (m.is_capture()
                                    ? "it captures on " + SquareName(to) + ", so it is written with 'x'"
                                    : "no piece to capture on " + SquareName(to) + ", so it is written with '-'"));
    return m;
  }
  const int distance = PopCount(pos.occupied() & LineThrough(OrientationOf(Direction(dir)), from));
  const int steps = std::max(std::abs(FileOf(to) - FileOf(from)), std::abs(RankOf(to) - RankOf(from)));
  if (steps != distance)
    throw ParseError(where + "illegal: its line holds " + std::to_string(distance) + " pieces, so it moves " +
                     std::to_string(distance) + " squares, not " + std::to_string(steps));
  if (pos.pieces(us) & SquareBB(to)) throw ParseError(where + "illegal: it lands on its own piece");
  throw ParseError(where + "illegal: it jumps over an enemy piece");
}

}  // namespace loa
