#include "core/formats.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace loa {
namespace {

constexpr PositionFormat kFormats[] = {PositionFormat::kLoaz, PositionFormat::kCutechess, PositionFormat::kPlayStrategy,
                                       PositionFormat::kOpenSpiel};

// The letters of a format for Black's piece, White's, and the side-to-move
// field of Black and of White (the first player is Black in LOAZero's
// words, White in PlayStrategy's).
struct Letters {
  char black, white, black_to_move, white_to_move;
};

Letters LettersOf(PositionFormat f) {
  switch (f) {
    case PositionFormat::kCutechess:
      return {'p', 'P', 'b', 'w'};
    case PositionFormat::kPlayStrategy:
      return {'L', 'l', 'w', 'b'};
    case PositionFormat::kOpenSpiel:
      return {'x', 'o', 'x', 'o'};
    case PositionFormat::kLoaz:
      break;
  }
  return {'b', 'w', 'b', 'w'};
}

std::vector<std::string> Fields(std::string_view text) {
  std::vector<std::string> fields;
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find_first_of(" \t\r\n", begin), text.size());
    if (end > begin) fields.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return fields;
}

// A FEN of cutechess or PlayStrategy: its board letters and side mapped to
// LOAZero's, the fields after the side (castling, en passant, clocks) ignored.
Position ReadFen(std::string_view text, PositionFormat f) {
  const std::vector<std::string> fields = Fields(text);
  const std::string quoted = std::string(PositionFormatName(f)) + " FEN '" + Excerpt(text) + "': ";
  if (fields.size() < 2 || fields.size() > 6)
    throw ParseError(quoted + "expected the board, the side to move and up to four more fields");
  const Letters l = LettersOf(f);
  std::string board = fields[0];
  for (char& ch : board) ch = ch == l.black ? 'b' : ch == l.white ? 'w' : ch;
  const std::string& side = fields[1];
  if (side.size() != 1 || (side[0] != l.black_to_move && side[0] != l.white_to_move))
    throw ParseError(quoted + "the side to move must be '" + l.black_to_move + "' or '" + l.white_to_move + "', not '" +
                     Excerpt(side) + "'");
  try {
    return Position::FromString(board + (side[0] == l.black_to_move ? " b" : " w"));
  } catch (const ParseError& e) {
    throw ParseError(quoted + e.what());
  }
}

// OpenSpiel's state string: ranks from the top, each its number and a
// letter a square; the files' line; "Current player: x" (or "o").
Position ReadOpenSpiel(std::string_view text) {
  const std::string quoted = "openspiel state '" + Excerpt(text, 40) + "': ";
  std::vector<std::string> ranks;
  char side = 0;
  for (const std::string& word : Fields(text)) {
    if (word[0] >= '1' && word[0] <= '8' && word.size() > 1) {
      std::string rank;
      for (char ch : word.substr(1)) rank += ch == 'x' ? 'b' : ch == 'o' ? 'w' : ch == '.' ? '1' : '?';
      ranks.push_back(rank);
    } else if (word == "x" || word == "o") {
      side = word[0];
    }
  }
  const size_t player = text.find("Current player:");
  if (player == std::string_view::npos || !side)
    throw ParseError(quoted + "no 'Current player: x' or 'Current player: o' line (a terminal state has no side)");
  std::string board;
  for (const std::string& rank : ranks) board += (board.empty() ? "" : "/") + rank;
  try {
    return Position::FromString(board + (side == 'x' ? " b" : " w"));
  } catch (const ParseError& e) {
    throw ParseError(quoted + e.what());
  }
}

std::string OpenSpielString(const Position& pos) {
  std::string s;
  for (int rank = pos.size() - 1; rank >= 0; --rank) {
    s += char('1' + rank);
    for (int file = 0; file < pos.size(); ++file) {
      const Bitboard b = SquareBB(MakeSquare(file, rank));
      s += (pos.pieces(kBlack) & b) ? 'x' : (pos.pieces(kWhite) & b) ? 'o' : '.';
    }
    s += '\n';
  }
  s += ' ';
  for (int file = 0; file < pos.size(); ++file) s += char('a' + file);
  return s + "\n\n\nCurrent player: " + (pos.side_to_move() == kBlack ? "x" : "o");
}

}  // namespace

const char* PositionFormatName(PositionFormat f) {
  switch (f) {
    case PositionFormat::kCutechess:
      return "cutechess";
    case PositionFormat::kPlayStrategy:
      return "playstrategy";
    case PositionFormat::kOpenSpiel:
      return "openspiel";
    case PositionFormat::kLoaz:
      break;
  }
  return "loaz";
}

PositionFormat ParsePositionFormat(std::string_view name) {
  for (PositionFormat f : kFormats)
    if (name == PositionFormatName(f)) return f;
  throw ParseError("position format '" + Excerpt(name) + "': known are loaz, cutechess, playstrategy, openspiel");
}

std::string FormatPosition(const Position& pos, PositionFormat f) {
  if (f == PositionFormat::kOpenSpiel) return OpenSpielString(pos);
  std::string text = pos.ToString();
  if (f == PositionFormat::kLoaz) return text;
  const Letters l = LettersOf(f);
  for (char& ch : text) ch = ch == 'b' ? l.black : ch == 'w' ? l.white : ch;
  text.back() = pos.side_to_move() == kBlack ? l.black_to_move : l.white_to_move;
  return text + " - - 0 1";
}

PositionFormat DetectPositionFormat(std::string_view text) {
  if (text.find("Current player") != std::string_view::npos) return PositionFormat::kOpenSpiel;
  const std::string_view board = text.substr(0, text.find_first_of(" \t\r\n"));
  bool ours = false, cutechess = false, playstrategy = false;
  for (char ch : board) {
    ours |= ch == 'b' || ch == 'w' || ch == 'B' || ch == 'W';
    cutechess |= ch == 'p' || ch == 'P';
    playstrategy |= ch == 'l' || ch == 'L';
  }
  if (ours + cutechess + playstrategy > 1)
    throw ParseError("position '" + Excerpt(text) +
                     "': the pieces mix the letters of two formats (b/w LOAZero's, p/P cutechess's, L/l "
                     "PlayStrategy's)");
  return cutechess ? PositionFormat::kCutechess : playstrategy ? PositionFormat::kPlayStrategy : PositionFormat::kLoaz;
}

Position ReadPosition(std::string_view text) {
  switch (const PositionFormat f = DetectPositionFormat(text)) {
    case PositionFormat::kCutechess:
    case PositionFormat::kPlayStrategy:
      return ReadFen(text, f);
    case PositionFormat::kOpenSpiel:
      return ReadOpenSpiel(text);
    case PositionFormat::kLoaz:
      break;
  }
  // LOAZero's string, with a FEN's trailing fields allowed ("... b - - 0 1").
  const std::vector<std::string> fields = Fields(text);
  if (fields.size() > 2 && fields.size() <= 6) return Position::FromString(fields[0] + " " + fields[1]);
  return Position::FromString(text);
}

}  // namespace loa
