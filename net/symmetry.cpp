#include "net/symmetry.h"

#include <utility>

#include "core/bitboard.h"
#include "net/encoder.h"

namespace loa {
namespace {

// Tables of the 8 symmetries, built once; the policy's for each board size.
struct SymmetryTables {
  Direction direction[kNumSymmetries][kNumDirections];
  int16_t policy[kBoardSize + 1][kNumSymmetries][kPolicySize];
  int8_t plane[kNumSymmetries][kMaxInputPlanes];

  SymmetryTables() {
    for (int t = 0; t < kNumSymmetries; ++t) {
      for (int d = 0; d < kNumDirections; ++d) {
        int df = kFileStep[d], dr = kRankStep[d];
        if (t & 4) std::swap(df, dr);
        if (t & 1) df = -df;
        if (t & 2) dr = -dr;
        for (int e = 0; e < kNumDirections; ++e)
          if (kFileStep[e] == df && kRankStep[e] == dr) direction[t][d] = Direction(e);
      }
      for (int n = kMinBoardSize; n <= kBoardSize; ++n)
        for (int i = 0; i < kPolicySize; ++i)
          policy[n][t][i] =
              int16_t(TransformSquare(t, PolicyFrom(i), n) * kNumDirections + direction[t][PolicyDirection(i)]);
      for (int p = 0; p < kMaxInputPlanes; ++p) plane[t][p] = int8_t(p);
      for (int o = 0; o < kNumOrientations; ++o)
        plane[t][kLineCountPlane + o] = int8_t(kLineCountPlane + OrientationOf(direction[t][o]));
    }
  }
};

const SymmetryTables& Tables() {
  static const SymmetryTables tables;
  return tables;
}

// Returns b with file a <-> h (chessprogramming.org, "Flipping Mirroring and Rotating").
constexpr Bitboard MirrorFiles(Bitboard b) {
  constexpr Bitboard k1 = 0x5555555555555555ULL, k2 = 0x3333333333333333ULL, k4 = 0x0f0f0f0f0f0f0f0fULL;
  b = ((b >> 1) & k1) | ((b & k1) << 1);
  b = ((b >> 2) & k2) | ((b & k2) << 2);
  b = ((b >> 4) & k4) | ((b & k4) << 4);
  return b;
}

}  // namespace

Direction TransformDirection(int t, Direction d) { return Tables().direction[t][d]; }

Bitboard TransformBitboard(int t, Bitboard b, int n) {
  // The n x n corner mirrors as the 8 x 8 board does, then moves back to the corner.
  if (t & 4) b = FlipDiagonal(b);
  if (t & 1) b = MirrorFiles(b) >> (kBoardSize - n);
  if (t & 2) b = __builtin_bswap64(b) >> (8 * (kBoardSize - n));
  return b;
}

Position TransformPosition(int t, const Position& pos) {
  const int n = pos.size();
  return Position(TransformBitboard(t, pos.pieces(kBlack), n), TransformBitboard(t, pos.pieces(kWhite), n),
                  pos.side_to_move(), n);
}

Move TransformMove(int t, Move m, int n) {
  if (m.is_pass() || m.is_null()) return m;
  return Move(TransformSquare(t, m.from(), n), TransformSquare(t, m.to(), n), TransformDirection(t, m.direction()),
              m.is_capture());
}

int TransformPolicyIndex(int t, int i, int n) { return Tables().policy[n][t][i]; }

void TransformPlanes(int t, const float* in, float* out, int planes, int n) {
  const SymmetryTables& tables = Tables();
  Square square_map[kNumSquares];
  for (Square s = 0; s < kNumSquares; ++s) square_map[s] = TransformSquare(t, s, n);
  for (int p = 0; p < planes; ++p) {
    const float* from = in + p * kNumSquares;
    float* to = out + tables.plane[t][p] * kNumSquares;
    for (Square s = 0; s < kNumSquares; ++s) to[square_map[s]] = from[s];
  }
}

}  // namespace loa
