#include "alphabeta/static_eval.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "core/bitboard.h"
#include "core/position.h"

namespace loa::ab {
namespace {

constexpr Bitboard kRank8 = kRank1 << 56;

// Returns how far s lies from the nearest edge of the n x n board, along
// files and along ranks (0 on the edge).
constexpr int FileDepth(Square s, int n) { return std::min(FileOf(s), n - 1 - FileOf(s)); }
constexpr int RankDepth(Square s, int n) { return std::min(RankOf(s), n - 1 - RankOf(s)); }

// Returns the piece-square value of s on the n x n board: the paper's
// centralisation table has the same shape (negative on the edge, most in the
// centre squares); the values are this repository's. Symmetric under the
// board's 8 symmetries.
constexpr int CentralisationValue(Square s, int n) {
  constexpr int kByDepth[4] = {-20, 5, 25, 40};  // edge ring 0 .. centre ring 3 (of 8 x 8)
  constexpr int kCorner = -40;
  const int df = FileDepth(s, n), dr = RankDepth(s, n);
  return df == 0 && dr == 0 ? kCorner : kByDepth[std::min(df, dr)];
}

// The classes of squares under the board's 8 symmetries, named by their
// square nearest a1 on 8 x 8: a1, b1, c1, d1, b2, c2, d2, c3, d3, d4 (0 to
// 9), by the depths of the file and the rank (0 edge .. 3 centre); a smaller
// board has the classes of its depths.
constexpr int kNumSquareClasses = 10;
constexpr int SquareClass(Square s, int n) {
  constexpr int kByDepths[4][4] = {{0}, {1, 4}, {2, 5, 7}, {3, 6, 8, 9}};  // [larger][smaller]
  const int df = FileDepth(s, n), dr = RankDepth(s, n);
  return kByDepths[std::max(df, dr)][std::min(df, dr)];
}

// What the features need to know of a board's size, for sizes 6..8.
struct BoardTables {
  Bitboard edge[kBoardSize + 1] = {};
  Bitboard top_rank[kBoardSize + 1] = {}, right_file[kBoardSize + 1] = {};
  int centralisation[kBoardSize + 1][kNumSquares] = {};
  Bitboard square_class[kBoardSize + 1][kNumSquareClasses] = {};
  constexpr BoardTables() {
    for (int n = kMinBoardSize; n <= kBoardSize; ++n) {
      top_rank[n] = kRank1 << (8 * (n - 1)) & BoardMask(n);
      right_file[n] = kFileA << (n - 1) & BoardMask(n);
      edge[n] = (kRank1 | kFileA | top_rank[n] | right_file[n]) & BoardMask(n);
      for (Square s = 0; s < kNumSquares; ++s) {
        if (!(BoardMask(n) & SquareBB(s))) continue;
        centralisation[n][s] = CentralisationValue(s, n);
        square_class[n][SquareClass(s, n)] |= SquareBB(s);
      }
    }
  }
};
constexpr BoardTables kBoards{};

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

// Returns the weighted mobility of the pieces `own` against `enemy` on the
// n x n board.
int Mobility(Bitboard own, Bitboard enemy, int n) {
  int total = 0;
  const Bitboard edge = kBoards.edge[n];
  ForEachMove(own, enemy, BoardMask(n), [&](Square, Square to, Direction, bool capture) {
    int value = kQuietMove * (capture ? kCaptureFactor : 1);
    if (edge & SquareBB(to)) value /= kEdgeDivisor;
    total += value;
  });
  return total;
}

// Returns how many enemy edge pieces have own pieces on at least two of their
// inner neighbours (one for a corner piece, which has a single one) on the
// n x n board.
int Walls(Bitboard own, Bitboard enemy, int n) {
  int walled = 0;
  for (Bitboard b = enemy & kBoards.edge[n]; b;) {
    const Square s = PopLowest(b);
    Bitboard edge_lines = 0;
    if (RankOf(s) == 0) edge_lines |= kRank1;
    if (RankOf(s) == n - 1) edge_lines |= kBoards.top_rank[n];
    if (FileOf(s) == 0) edge_lines |= kFileA;
    if (FileOf(s) == n - 1) edge_lines |= kBoards.right_file[n];
    const Bitboard inner = Neighbours(SquareBB(s)) & ~edge_lines;
    if (PopCount(inner & own) >= std::min(2, PopCount(inner))) ++walled;
  }
  return walled;
}

// Sets low and high to the first and last of the lines first_line << (kStep * i), i < 8, that meet b; b must not be
// empty.
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
  const int n = PopCount(own), size = pos.size();
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
    centralisation += kBoards.centralisation[size][s];
  }
  const int surplus = std::max(0, distance_sum - MinimalDistanceSum(n) * n);
  f.concentration = -100 * surplus / (n * n);
  f.centralisation = centralisation / n;
  // The board centre is ((size - 1) / 2, (size - 1) / 2): in units of 1/(2n) it is (size - 1) n (7n on 8 x 8).
  const int centre = (size - 1) * n;
  const int centre_offset = std::max(std::abs(2 * sum_file - centre), std::abs(2 * sum_rank - centre));
  f.centre_of_mass = -100 * centre_offset / (2 * n);
  f.quads = CountQuads(own);
  f.mobility = Mobility(own, enemy, size);
  f.walls = Walls(own, enemy, size);
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
  for (int k = 0; k < kNumSquareClasses - 1; ++k) f.*kClassCounts[k] = PopCount(own & kBoards.square_class[size][k]);
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
