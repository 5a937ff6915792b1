#include "alphabeta/static_eval.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "core/bitboard.h"
#include "core/position.h"

namespace loa::ab {
namespace {

constexpr Bitboard kRank8 = kRank1 << 56;
constexpr Bitboard kEdge = kRank1 | kRank8 | kFileA | kFileH;

// Returns the piece-square value of s: the paper's centralisation table has
// the same shape (negative on the edge, most in the four centre squares); the
// values are this repository's. Symmetric under the 8 board symmetries.
constexpr int CentralisationValue(Square s) {
  constexpr int kByRing[4] = {40, 25, 5, -20};  // centre ring 0 .. edge ring 3
  constexpr int kCorner = -40;
  const int df = FileOf(s) < 4 ? 3 - FileOf(s) : FileOf(s) - 4;
  const int dr = RankOf(s) < 4 ? 3 - RankOf(s) : RankOf(s) - 4;
  return df == 3 && dr == 3 ? kCorner : kByRing[std::max(df, dr)];
}

struct CentralisationTable {
  int value[kNumSquares] = {};
  constexpr CentralisationTable() {
    for (Square s = 0; s < kNumSquares; ++s) value[s] = CentralisationValue(s);
  }
};
constexpr CentralisationTable kCentralisation{};

// The classes of squares under the board's 8 symmetries, named by their
// square nearest a1: a1, b1, c1, d1, b2, c2, d2, c3, d3, d4 (0 to 9), by the
// distances of the file and the rank from the edge (0 edge .. 3 centre).
constexpr int kNumSquareClasses = 10;
constexpr int SquareClass(Square s) {
  constexpr int kByDistances[4][4] = {{0}, {1, 4}, {2, 5, 7}, {3, 6, 8, 9}};  // [larger][smaller]
  const int df = FileOf(s) < 4 ? FileOf(s) : 7 - FileOf(s);
  const int dr = RankOf(s) < 4 ? RankOf(s) : 7 - RankOf(s);
  return kByDistances[std::max(df, dr)][std::min(df, dr)];
}

struct SquareClassMasks {
  Bitboard mask[kNumSquareClasses] = {};
  constexpr SquareClassMasks() {
    for (Square s = 0; s < kNumSquares; ++s) mask[SquareClass(s)] |= SquareBB(s);
  }
};
constexpr SquareClassMasks kSquareClasses{};

// The least sum of Chebyshev distances to the centre of mass that n pieces can
// have: one on it, eight around it, the rest one ring further (Winands 2003).
constexpr int MinimalDistanceSum(int n) { return n <= 9 ? std::max(0, n - 1) : 8 + 2 * (n - 9); }

// Mobility weights (units of half a move): captures count double and moves to
// the edge half, as the paper describes MIA's mobility.
constexpr int kQuietMove = 2;
constexpr int kCaptureFactor = 2;
constexpr int kEdgeDivisor = 2;

// Returns the number of 2x2 blocks holding at least three squares of b.
int CountQuads(Bitboard b) {
  // Bit s of each set is the square of the block whose lower-left corner is s.
  const Bitboard anchors = ~(kFileH | kRank8);
  const Bitboard a = b, c = b >> 1, d = b >> 8, e = b >> 9;
  const Bitboard at_least_three = (a & c & (d | e)) | (d & e & (a | c));
  return PopCount(at_least_three & anchors);
}

// Returns the number of 8-adjacent pairs within b.
int CountAdjacentPairs(Bitboard b) {
  return PopCount(b & ((b << 1) & ~kFileA)) + PopCount(b & (b << 8)) + PopCount(b & ((b << 9) & ~kFileA)) +
         PopCount(b & ((b << 7) & ~kFileH));
}

// Returns the weighted mobility of the pieces `own` against `enemy`.
int Mobility(Bitboard own, Bitboard enemy) {
  int total = 0;
  ForEachMove(own, enemy, [&](Square, Square to, Direction, bool capture) {
    int value = kQuietMove * (capture ? kCaptureFactor : 1);
    if (kEdge & SquareBB(to)) value /= kEdgeDivisor;
    total += value;
  });
  return total;
}

// Returns how many enemy edge pieces have own pieces on at least two of their
// inner neighbours (one for a corner piece, which has a single one).
int Walls(Bitboard own, Bitboard enemy) {
  int walled = 0;
  for (Bitboard b = enemy & kEdge; b;) {
    const Square s = PopLowest(b);
    Bitboard edge_lines = 0;
    if (RankOf(s) == 0) edge_lines |= kRank1;
    if (RankOf(s) == 7) edge_lines |= kRank8;
    if (FileOf(s) == 0) edge_lines |= kFileA;
    if (FileOf(s) == 7) edge_lines |= kFileH;
    const Bitboard inner = Neighbours(SquareBB(s)) & ~edge_lines;
    if (PopCount(inner & own) >= std::min(2, PopCount(inner))) ++walled;
  }
  return walled;
}

// Sets low and high to the first and last of the 8 lines first_line << (kStep * i) that meet b; b must not be empty.
template <int kStep>
void Extent(Bitboard b, Bitboard first_line, int& low, int& high) {
  low = 0;
  while (!(b & (first_line << (kStep * low)))) ++low;
  high = 7;
  while (!(b & (first_line << (kStep * high)))) --high;
}

}  // namespace

SideFeatures ComputeFeatures(const Position& pos, Color c, bool with_groups) {
  SideFeatures f;
  const Bitboard own = pos.pieces(c), enemy = pos.pieces(Opponent(c));
  const int n = PopCount(own);
  if (n == 0) return f;
  // Sums of files and ranks: the centre of mass is (sum_file / n, sum_rank / n).
  int sum_file = 0, sum_rank = 0;
  for (int i = 1; i < 8; ++i) {
    sum_file += i * PopCount(own & (kFileA << i));
    sum_rank += i * PopCount(own & (kRank1 << (8 * i)));
  }
  // Distances in units of 1/n so that the centre of mass need not be rounded.
  int distance_sum = 0, centralisation = 0;
  for (Bitboard b = own; b;) {
    const Square s = PopLowest(b);
    distance_sum += std::max(std::abs(FileOf(s) * n - sum_file), std::abs(RankOf(s) * n - sum_rank));
    centralisation += kCentralisation.value[s];
  }
  const int surplus = std::max(0, distance_sum - MinimalDistanceSum(n) * n);
  f.concentration = -100 * surplus / (n * n);
  f.centralisation = centralisation / n;
  // The board centre is (3.5, 3.5): in units of 1/(2n) it is 7n.
  const int centre_offset = std::max(std::abs(2 * sum_file - 7 * n), std::abs(2 * sum_rank - 7 * n));
  f.centre_of_mass = -100 * centre_offset / (2 * n);
  f.quads = CountQuads(own);
  f.mobility = Mobility(own, enemy);
  f.walls = Walls(own, enemy);
  f.connectedness = 100 * CountAdjacentPairs(own) / n;
  int low_file, high_file, low_rank, high_rank;
  Extent<1>(own, kFileA, low_file, high_file);
  Extent<8>(own, kRank1, low_rank, high_rank);
  f.uniformity = -(high_file - low_file + 1) * (high_rank - low_rank + 1);
  if (with_groups) {
    int largest = 0;
    for (Bitboard rest = own; rest;) {
      const Bitboard group = GroupOf(rest & (0 - rest), rest);
      rest &= ~group;
      --f.groups;
      largest = std::max(largest, PopCount(group));
    }
    f.outside = largest - n;
  }
  f.pieces = n;
  static constexpr int SideFeatures::*kClassCounts[kNumSquareClasses - 1] = {
      &SideFeatures::square_a1, &SideFeatures::square_b1, &SideFeatures::square_c1,
      &SideFeatures::square_d1, &SideFeatures::square_b2, &SideFeatures::square_c2,
      &SideFeatures::square_d2, &SideFeatures::square_c3, &SideFeatures::square_d3};
  for (int k = 0; k < kNumSquareClasses - 1; ++k) f.*kClassCounts[k] = PopCount(own & kSquareClasses.mask[k]);
  return f;
}

// The bodies are files that `loaz tune-eval --code` writes.
// clang-format off
EvalWeights EvalWeights::Default() {
#include "alphabeta/default_weights.inc"
}

EvalWeights EvalWeights::Version(int version) {
  if (version == 1) return Version1();
  if (version <= 3) {
#include "alphabeta/version2_weights.inc"
  }
  return Default();
}
// clang-format on

int StaticScore(const Position& pos, const EvalWeights& w) {
  const Color us = pos.side_to_move();
  // The groups cost a flood fill: computed only where a weight reads them.
  const bool groups =
      w.groups != 0 || w.outside != 0 ||
      (w.tapered && (w.late[TermIndex(&EvalWeights::groups)] != 0 || w.late[TermIndex(&EvalWeights::outside)] != 0));
  const SideFeatures a = ComputeFeatures(pos, us, groups), b = ComputeFeatures(pos, Opponent(us), groups);
  int64_t value = 0;
  if (!w.tapered) {
    for (const EvalTerm& t : kEvalTerms) value += w.*t.weight * (t.feature ? a.*t.feature - b.*t.feature : 1);
  } else {
    const int on_board = std::clamp(PopCount(pos.occupied()), kTaperEmpty, kTaperFull);
    int k = 0;
    for (const EvalTerm& t : kEvalTerms) {
      const int64_t blended =
          int64_t(w.*t.weight) * (on_board - kTaperEmpty) + int64_t(w.late[k++]) * (kTaperFull - on_board);
      value += blended * (t.feature ? a.*t.feature - b.*t.feature : 1);
    }
    value /= kTaperFull - kTaperEmpty;
  }
  return int(std::clamp<int64_t>(value / std::max(1, w.scale), -kMaxEvaluation + 1, kMaxEvaluation - 1));
}

}  // namespace loa::ab
