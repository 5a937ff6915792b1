#pragma once
// The 8 symmetries of the square board (the dihedral group D4), applied to
// squares, bitboards, positions, moves, policy indices and input planes. The
// rules are invariant under all of them: training augments with them and
// play may average over them. No LibTorch here; every function is
// thread-safe.

#include "core/move.h"
#include "core/position.h"
#include "core/types.h"
#include "net/encoder.h"

namespace loa {

inline constexpr int kNumSymmetries = 8;

// Symmetry t (0..7) of the n x n board (docs/RULES.md, "Board sizes")
// transposes the board (file <-> rank) when bit 2 is set, then mirrors the
// files (a <-> the last) when bit 0 is set, then the ranks (1 <-> n) when bit 1
// is set. t = 0 is the identity. A square off the board stays where it is (so
// that the planes of a smaller board, zero there, move as one permutation).
constexpr Square TransformSquare(int t, Square s, int n = kBoardSize) {
  int f = FileOf(s), r = RankOf(s);
  if (f >= n || r >= n) return s;
  if (t & 4) {
    int x = f;
    f = r;
    r = x;
  }
  if (t & 1) f = n - 1 - f;
  if (t & 2) r = n - 1 - r;
  return MakeSquare(f, r);
}

// Returns the symmetry that undoes t.
constexpr int InverseSymmetry(int t) { return (t & 4) ? (4 | ((t & 1) << 1) | ((t & 2) >> 1)) : t; }

// Returns the direction d becomes under symmetry t.
Direction TransformDirection(int t, Direction d);

// Returns the bitboard with every square s of b, which must lie on the n x n
// board, moved to TransformSquare(t, s, n).
Bitboard TransformBitboard(int t, Bitboard b, int n = kBoardSize);

// Returns the position with its pieces moved by symmetry t of its board; same
// side to move.
Position TransformPosition(int t, const Position& pos);

// Returns move m under symmetry t of the n x n board (the pass and the null
// move are unchanged).
Move TransformMove(int t, Move m, int n = kBoardSize);

// Returns the policy index i (from * 8 + direction) under symmetry t of the
// n x n board.
int TransformPolicyIndex(int t, int i, int n = kBoardSize);

// Writes the input planes of one position (`planes` x 64 floats, of either
// input set) under symmetry t: each square moves, and the line-count planes
// change orientation as the lines do (a transpose swaps files and ranks, a
// mirror swaps the diagonals; the connection set's planes only move), so
// that EncodePosition(TransformPosition(t, p)) equals the result for
// EncodePosition(p) (p on the n x n board). in and out must not overlap.
void TransformPlanes(int t, const float* in, float* out, int planes = kNumInputPlanes, int n = kBoardSize);

}  // namespace loa
