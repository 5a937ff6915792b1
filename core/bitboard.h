#pragma once
// Precomputed line geometry and set operations on bitboards.

#include "core/types.h"

namespace loa {

inline constexpr Bitboard kFileA = 0x0101010101010101ULL;
inline constexpr Bitboard kFileH = kFileA << 7;
inline constexpr Bitboard kRank1 = 0xFFULL;

namespace detail {

// Tables built at compile time; read them through the functions below.
struct Geometry {
  Bitboard line[kNumOrientations][kNumSquares] = {};  // whole line through s
  Bitboard between[kNumSquares][kNumSquares] = {};    // strictly between, if aligned
  // n = 0..8 squares away, or kNoSquare: a line of 8 pieces moves a piece 8
  // squares, always off the board.
  int8_t target[kNumSquares][kNumDirections][9] = {};

  constexpr Geometry() {
    for (Square s = 0; s < kNumSquares; ++s) {
      for (int d = 0; d < kNumDirections; ++d) {
        target[s][d][0] = int8_t(s);
        Bitboard path = 0;
        for (int n = 1; n <= 8; ++n) {
          int f = FileOf(s) + n * kFileStep[d], r = RankOf(s) + n * kRankStep[d];
          if (!OnBoard(f, r)) {
            target[s][d][n] = int8_t(kNoSquare);
            continue;
          }
          Square t = MakeSquare(f, r);
          target[s][d][n] = int8_t(t);
          between[s][t] = path;
          path |= SquareBB(t);
          line[d & 3][s] |= SquareBB(t);
        }
      }
      for (int o = 0; o < kNumOrientations; ++o) line[o][s] |= SquareBB(s);
    }
  }
};

inline constexpr Geometry kGeometry{};

}  // namespace detail

// Returns every square of the line of orientation o through s, s included.
inline Bitboard LineThrough(Orientation o, Square s) { return detail::kGeometry.line[o][s]; }

// Returns the squares strictly between a and b when they share a line, else 0.
inline Bitboard Between(Square a, Square b) { return detail::kGeometry.between[a][b]; }

// Returns the square n (0..8) steps from s in direction d, or kNoSquare when
// that leaves the board.
inline Square TargetSquare(Square s, Direction d, int n) { return detail::kGeometry.target[s][d][n]; }

// Returns the squares adjacent (8-neighbourhood) to some square of b; a square
// of b is included only when it is adjacent to another square of b.
constexpr Bitboard Neighbours(Bitboard b) {
  Bitboard sideways = ((b << 1) & ~kFileA) | ((b >> 1) & ~kFileH);
  Bitboard row = b | sideways;
  return sideways | (row << 8) | (row >> 8);
}

// Returns b mirrored about the a1-h8 diagonal: the square on file f and rank r
// goes to file r and rank f, so byte k holds file k in rank order.
// (chessprogramming.org, "Flipping Mirroring and Rotating".)
constexpr Bitboard FlipDiagonal(Bitboard b) {
  constexpr Bitboard k1 = 0x5500550055005500ULL, k2 = 0x3333000033330000ULL, k4 = 0x0F0F0F0F00000000ULL;
  Bitboard t = k4 & (b ^ (b << 28));
  b ^= t ^ (t >> 28);
  t = k2 & (b ^ (b << 14));
  b ^= t ^ (t >> 14);
  t = k1 & (b ^ (b << 7));
  return b ^ t ^ (t >> 7);
}

// Returns whether the squares of b form one 8-connected group; an empty set
// and a single square are connected.
bool IsConnected(Bitboard b);

// Returns the number of 8-connected groups in b.
int CountGroups(Bitboard b);

// Returns the 8-connected group of `within` that holds the squares of seed
// (which must lie in `within`).
Bitboard GroupOf(Bitboard seed, Bitboard within);

}  // namespace loa
