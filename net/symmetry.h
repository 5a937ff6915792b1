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

// Symmetry t (0..7) transposes the board (file <-> rank) when bit 2 is set,
// then mirrors the files (a <-> h) when bit 0 is set, then the ranks (1 <-> 8)
// when bit 1 is set. t = 0 is the identity.
constexpr Square TransformSquare(int t, Square s) {
  int f = FileOf(s), r = RankOf(s);
  if (t & 4) {
    int x = f;
    f = r;
    r = x;
  }
  if (t & 1) f = 7 - f;
  if (t & 2) r = 7 - r;
  return MakeSquare(f, r);
}

// Returns the symmetry that undoes t.
constexpr int InverseSymmetry(int t) { return (t & 4) ? (4 | ((t & 1) << 1) | ((t & 2) >> 1)) : t; }

// Returns the direction d becomes under symmetry t.
Direction TransformDirection(int t, Direction d);

// Returns the bitboard with every square s of b moved to TransformSquare(t, s).
Bitboard TransformBitboard(int t, Bitboard b);

// Returns the position with its pieces moved by symmetry t; same side to move.
Position TransformPosition(int t, const Position& pos);

// Returns move m under symmetry t (the pass and the null move are unchanged).
Move TransformMove(int t, Move m);

// Returns the policy index i (from * 8 + direction) under symmetry t.
int TransformPolicyIndex(int t, int i);

// Writes the 512 policy values of `in` to their slots under symmetry t:
// out[TransformPolicyIndex(t, i)] = in[i]. in and out must not overlap.
void TransformPolicy(int t, const float* in, float* out);

// Writes the input planes of one position (`planes` x 64 floats, of either
// input set) under symmetry t: each square moves, and the line-count planes
// change orientation as the lines do (a transpose swaps files and ranks, a
// mirror swaps the diagonals; the connection set's planes only move), so
// that EncodePosition(TransformPosition(t, p)) equals the result for
// EncodePosition(p). in and out must not overlap.
void TransformPlanes(int t, const float* in, float* out, int planes = kNumInputPlanes);

}  // namespace loa
