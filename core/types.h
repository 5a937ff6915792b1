#pragma once
// The vocabulary of the rules core: bitboards, squares, colours, directions.

#include <cstdint>

namespace loa {

// A set of squares: bit i is square i (a1 = 0, b1 = 1, ..., h8 = 63).
using Bitboard = uint64_t;

// A square index 0..63, file-major within a rank: a1 = 0, h1 = 7, a8 = 56.
using Square = int;

// The bitboard's width: the largest board, and the board of the Olympiad.
inline constexpr int kBoardSize = 8;
inline constexpr int kNumSquares = 64;
inline constexpr Square kNoSquare = 64;
// The smallest board the rules allow (docs/RULES.md, "Board sizes"). A
// board of size n < 8 is the n x n corner a1..(n, n) of the 8 x 8 bitboard,
// so that squares, moves and policy indices keep their numbers.
inline constexpr int kMinBoardSize = 6;

// The side to move or the owner of a piece. Black moves first.
enum Color : int { kBlack = 0, kWhite = 1 };

// Returns the other colour.
constexpr Color Opponent(Color c) { return Color(c ^ 1); }

// The eight directions of movement, numbered clockwise from north. A move's
// policy index is from * 8 + direction.
enum Direction : int { kNorth, kNorthEast, kEast, kSouthEast, kSouth, kSouthWest, kWest, kNorthWest };

inline constexpr int kNumDirections = 8;

// The four line orientations; direction d moves along orientation d % 4:
// N/S along the file, NE/SW along the diagonal (a1-h8 way), E/W along the rank,
// SE/NW along the anti-diagonal (a8-h1 way).
enum Orientation : int { kFileLine, kDiagonalLine, kRankLine, kAntiDiagonalLine };

inline constexpr int kNumOrientations = 4;

// Returns the line orientation that direction d moves along.
constexpr Orientation OrientationOf(Direction d) { return Orientation(d & 3); }

// Returns the direction opposite to d.
constexpr Direction Reverse(Direction d) { return Direction((d + 4) & 7); }

// File step and rank step of one square in direction d.
constexpr int kFileStep[kNumDirections] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int kRankStep[kNumDirections] = {1, 1, 0, -1, -1, -1, 0, 1};

// Returns the file 0..7 (a..h) of square s.
constexpr int FileOf(Square s) { return s & 7; }
// Returns the rank 0..7 (1..8) of square s.
constexpr int RankOf(Square s) { return s >> 3; }
// Returns the square on file f and rank r; both must be in 0..7.
constexpr Square MakeSquare(int f, int r) { return r * 8 + f; }
// Returns whether file f and rank r are on the board.
constexpr bool OnBoard(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

// Returns whether n is a board size the rules allow (6, 7 or 8).
constexpr bool IsBoardSize(int n) { return n >= kMinBoardSize && n <= kBoardSize; }

// Returns the squares of the n x n board (n in 6..8): files a.., ranks 1..n.
constexpr Bitboard BoardMask(int n) {
  const Bitboard rank = (Bitboard{1} << n) - 1;  // the first n files of a rank
  Bitboard mask = 0;
  for (int r = 0; r < n; ++r) mask |= rank << (8 * r);
  return mask;
}

// Returns the bitboard holding square s alone.
constexpr Bitboard SquareBB(Square s) { return Bitboard{1} << s; }

// Returns the number of squares in b.
inline int PopCount(Bitboard b) { return __builtin_popcountll(b); }
// Returns the lowest square of b; b must not be empty.
inline Square LowestSquare(Bitboard b) { return __builtin_ctzll(b); }
// Removes the lowest square of b and returns it; b must not be empty.
inline Square PopLowest(Bitboard& b) {
  Square s = LowestSquare(b);
  b &= b - 1;
  return s;
}

}  // namespace loa
