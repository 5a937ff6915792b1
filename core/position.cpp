#include "core/position.h"

#include <cassert>

#include "core/error.h"

namespace loa {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, portable key sequence.
constexpr uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

struct ZobristKeys {
  uint64_t piece[2][kNumSquares] = {};
  constexpr ZobristKeys() {
    uint64_t state = 0x4C4F415A65726F00ULL;  // "LOAZero\0"
    for (auto& side : piece)
      for (auto& key : side) key = SplitMix64(state) & ~uint64_t{1};
  }
};

constexpr ZobristKeys kZobrist{};

// The side-to-move bit of the hash.
constexpr uint64_t kWhiteToMove = 1;

constexpr int kMaxPiecesPerSide = 12;

// Rank bitboards of the start positions, built from RULES.md.
constexpr Bitboard kEdgeRanksInner = 0x7EULL | (0x7EULL << 56);      // b1..g1, b8..g8
constexpr Bitboard kEdgeFilesInner = 0x0001010101010100ULL * 0x81;  // a2..a7, h2..h7

Bitboard SquaresOf(std::initializer_list<const char*> names) {
  Bitboard b = 0;
  for (const char* n : names) b |= SquareBB(ParseSquare(n));
  return b;
}

}  // namespace

uint64_t PieceKey(Color c, Square s) { return kZobrist.piece[c][s]; }

std::string SquareName(Square s) {
  return {char('a' + FileOf(s)), char('1' + RankOf(s))};
}

Square ParseSquare(std::string_view text) {
  if (text.size() != 2) return kNoSquare;
  int f = (text[0] | 0x20) - 'a', r = text[1] - '1';
  return OnBoard(f, r) ? MakeSquare(f, r) : kNoSquare;
}

Position::Position(Bitboard black, Bitboard white, Color side_to_move) {
  assert((black & white) == 0);
  pieces_[kBlack] = black;
  pieces_[kWhite] = white;
  hash_ = side_to_move == kWhite ? kWhiteToMove : 0;
  for (Color c : {kBlack, kWhite})
    for (Bitboard b = pieces_[c]; b;) hash_ ^= PieceKey(c, PopLowest(b));
}

Position Position::Start(StartKind kind) {
  if (kind == StartKind::kStandard) return Position(kEdgeRanksInner, kEdgeFilesInner, kBlack);
  static const Bitboard kBlackScrambled =
      SquaresOf({"b1", "d1", "f1", "c8", "e8", "g8", "a3", "a5", "a7", "h2", "h4", "h6"});
  return Position(kBlackScrambled, (kEdgeRanksInner | kEdgeFilesInner) & ~kBlackScrambled, kBlack);
}

Position Position::FromString(std::string_view text) {
  const std::string quoted = "position '" + std::string(text) + "': ";
  auto fail = [&](const std::string& why) { throw ParseError(quoted + why); };
  Bitboard pieces[2] = {0, 0};
  size_t i = 0;
  for (int rank = 7; rank >= 0; --rank) {
    int file = 0;
    for (; i < text.size() && text[i] != '/' && text[i] != ' '; ++i) {
      char ch = text[i];
      if (ch >= '1' && ch <= '8') {
        file += ch - '0';
      } else if (ch == 'b' || ch == 'w' || ch == 'B' || ch == 'W') {
        if (file < 8) pieces[(ch | 0x20) == 'w'] |= SquareBB(MakeSquare(file, rank));
        ++file;
      } else {
        fail(std::string("unknown letter '") + ch + "' in rank " + char('1' + rank));
      }
      if (file > 8) fail(std::string("rank ") + char('1' + rank) + " has more than 8 squares");
    }
    if (file != 8) fail(std::string("rank ") + char('1' + rank) + " has " + std::to_string(file) + " squares, not 8");
    if (rank > 0) {
      if (i >= text.size() || text[i] != '/') fail("expected 8 ranks separated by '/'");
      ++i;
    }
  }
  if (i < text.size() && text[i] == '/') fail("more than 8 ranks");
  while (i < text.size() && text[i] == ' ') ++i;
  if (i >= text.size()) fail("missing side to move ('b' or 'w')");
  std::string_view side = text.substr(i);
  while (!side.empty() && (side.back() == ' ' || side.back() == '\n' || side.back() == '\r')) side.remove_suffix(1);
  Color to_move;
  if (side == "b" || side == "B") {
    to_move = kBlack;
  } else if (side == "w" || side == "W") {
    to_move = kWhite;
  } else {
    fail("side to move must be 'b' or 'w', not '" + std::string(side) + "'");
  }
  for (Color c : {kBlack, kWhite}) {
    const char* name = c == kBlack ? "black" : "white";
    int n = PopCount(pieces[c]);
    if (n == 0) fail(std::string(name) + " has no piece");
    if (n > kMaxPiecesPerSide) fail(std::string(name) + " has " + std::to_string(n) + " pieces, more than 12");
  }
  return Position(pieces[kBlack], pieces[kWhite], to_move);
}

std::string Position::ToString() const {
  std::string s;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      Bitboard b = SquareBB(MakeSquare(file, rank));
      char ch = (pieces_[kBlack] & b) ? 'b' : (pieces_[kWhite] & b) ? 'w' : 0;
      if (!ch) {
        ++empty;
        continue;
      }
      if (empty) s += char('0' + empty);
      empty = 0;
      s += ch;
    }
    if (empty) s += char('0' + empty);
    if (rank) s += '/';
  }
  s += side_to_move() == kBlack ? " b" : " w";
  return s;
}

std::string Position::Diagram() const {
  std::string s;
  for (int rank = 7; rank >= 0; --rank) {
    s += "  ";
    s += char('1' + rank);
    for (int file = 0; file < 8; ++file) {
      Bitboard b = SquareBB(MakeSquare(file, rank));
      s += ' ';
      s += (pieces_[kBlack] & b) ? 'b' : (pieces_[kWhite] & b) ? 'w' : '.';
    }
    s += '\n';
  }
  s += "    a b c d e f g h\n";
  return s;
}

template <typename Visit>
inline void Position::ForEachMove(Visit&& visit) const {
  const Color us = side_to_move();
  const Bitboard own = pieces_[us], enemy = pieces_[Opponent(us)], occupied = own | enemy;
  for (Bitboard b = own; b;) {
    const Square from = PopLowest(b);
    for (int o = 0; o < kNumOrientations; ++o) {
      const int distance = PopCount(occupied & LineThrough(Orientation(o), from));
      for (Direction dir : {Direction(o), Reverse(Direction(o))}) {
        const Square to = TargetSquare(from, dir, distance);
        if (to == kNoSquare || (own & SquareBB(to)) || (enemy & Between(from, to))) continue;
        visit(from, to, dir, (enemy & SquareBB(to)) != 0);
      }
    }
  }
}

void Position::GenerateMoves(MoveList& moves) const {
  const int before = moves.size();
  ForEachMove([&](Square from, Square to, Direction dir, bool capture) { moves.push_back(Move(from, to, dir, capture)); });
  if (moves.size() == before) moves.push_back(Move::Pass());
}

int Position::CountMoves() const {
  int n = 0;
  ForEachMove([&](Square, Square, Direction, bool) { ++n; });
  return n ? n : 1;
}

Move Position::MoveAt(Square from, Direction dir) const {
  const Color us = side_to_move();
  const Bitboard own = pieces_[us], enemy = pieces_[Opponent(us)];
  if (!(own & SquareBB(from))) return Move();
  const int distance = PopCount(occupied() & LineThrough(OrientationOf(dir), from));
  const Square to = TargetSquare(from, dir, distance);
  if (to == kNoSquare || (own & SquareBB(to)) || (enemy & Between(from, to))) return Move();
  return Move(from, to, dir, (enemy & SquareBB(to)) != 0);
}

bool Position::IsLegal(Move m) const {
  if (m.is_pass()) {
    bool any = false;
    ForEachMove([&](Square, Square, Direction, bool) { any = true; });
    return !any;
  }
  return !m.is_null() && MoveAt(m.from(), m.direction()) == m;
}

Position Position::Apply(Move m) const {
  Position next = *this;
  next.hash_ ^= kWhiteToMove;
  if (m.is_pass()) return next;
  assert(MoveAt(m.from(), m.direction()) == m);
  const Color us = side_to_move(), them = Opponent(us);
  const Bitboard to = SquareBB(m.to());
  next.pieces_[us] ^= SquareBB(m.from()) | to;
  next.hash_ ^= PieceKey(us, m.from()) ^ PieceKey(us, m.to());
  if (pieces_[them] & to) {
    next.pieces_[them] ^= to;
    next.hash_ ^= PieceKey(them, m.to());
  }
  return next;
}

}  // namespace loa
