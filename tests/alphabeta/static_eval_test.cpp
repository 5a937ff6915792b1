// The evaluation: its symmetries and its features on hand-built positions.

#include <gtest/gtest.h>

#include "alphabeta/static_eval.h"
#include "core/game.h"
#include "core/random_play.h"

namespace loa::ab {
namespace {

// Returns b under symmetry t (0..7) of the square: bit 0 mirrors files,
// bit 1 mirrors ranks, bit 2 transposes.
Bitboard Transform(Bitboard b, int t) {
  Bitboard out = 0;
  for (; b; b &= b - 1) {
    const Square s = LowestSquare(b);
    int f = FileOf(s), r = RankOf(s);
    if (t & 1) f = 7 - f;
    if (t & 2) r = 7 - r;
    if (t & 4) std::swap(f, r);
    out |= SquareBB(MakeSquare(f, r));
  }
  return out;
}

// Weights that read every term, each a different amount, tapered.
EvalWeights EveryTerm() {
  EvalWeights w;
  int k = 0;
  for (const EvalTerm& t : kEvalTerms) {
    w.*t.weight = 5 + 7 * k;
    w.late[k] = 40 - 3 * k;
    ++k;
  }
  w.tapered = true;
  return w;
}

TEST(EvaluationTest, IsInvariantUnderTheBoardSymmetries) {
  for (const EvalWeights& w : {EvalWeights::Default(), EveryTerm()}) {
    for (const Position& pos : RandomPositions(40, 3)) {
      const int value = StaticScore(pos, w);
      for (int t = 1; t < 8; ++t) {
        const Position image(Transform(pos.pieces(kBlack), t), Transform(pos.pieces(kWhite), t), pos.side_to_move());
        EXPECT_EQ(StaticScore(image, w), value) << pos.ToString() << " symmetry " << t;
      }
    }
  }
}

TEST(EvaluationTest, IsInvariantUnderSwappingColours) {
  for (const EvalWeights& w : {EvalWeights::Default(), EveryTerm()}) {
    for (const Position& pos : RandomPositions(40, 4)) {
      const Position swapped(pos.pieces(kWhite), pos.pieces(kBlack), Opponent(pos.side_to_move()));
      EXPECT_EQ(StaticScore(swapped, w), StaticScore(pos, w)) << pos.ToString();
    }
  }
}

TEST(EvaluationTest, StartPositionIsBalanced) {
  // The start is symmetric between the colours (a quarter turn swaps them),
  // so only the tempo counts.
  const Position start = Position::Start();
  const Position white_to_move(start.pieces(kBlack), start.pieces(kWhite), kWhite);
  EXPECT_EQ(StaticScore(start), StaticScore(white_to_move));
  EXPECT_GT(StaticScore(start), 0);
}

TEST(EvaluationTest, FeaturesOfAHandBuiltPosition) {
  // Black: a 2x2 block c3 d3 c4 d4 plus a lone h8; white: a1 b1 on the edge
  // below the block, nothing walled.
  const Position pos = Position::FromString("7b/8/8/8/2bb4/2bb4/8/ww6 b");
  const SideFeatures black = ComputeFeatures(pos, kBlack);
  EXPECT_EQ(black.quads, 1);
  EXPECT_EQ(black.connectedness, 100 * 6 / 5);  // the block has 6 adjacent pairs
  EXPECT_EQ(black.uniformity, -(6 * 6));        // files c..h, ranks 3..8
  const SideFeatures white = ComputeFeatures(pos, kWhite);
  EXPECT_EQ(white.quads, 0);
  EXPECT_EQ(white.connectedness, 100 * 1 / 2);
  EXPECT_EQ(white.uniformity, -2);
  EXPECT_EQ(white.walls, 0);
  EXPECT_EQ(black.walls, 0);
  // A united block is as concentrated as it can be.
  const SideFeatures block = ComputeFeatures(Position::FromString("8/8/8/8/2bb4/2bb4/8/ww6 b"), kBlack);
  EXPECT_EQ(block.concentration, 0);
  EXPECT_GT(block.concentration, black.concentration);
}

TEST(EvaluationTest, OutsideCountsPiecesBeyondTheLargestGroup) {
  // Black: a group of four (c3 d3 c4 d4), a pair (g6 h7) and a lone a8.
  const Position pos = Position::FromString("b7/7b/6b1/8/2bb4/2bb4/8/ww6 b");
  const SideFeatures black = ComputeFeatures(pos, kBlack);
  EXPECT_EQ(black.groups, -3);
  EXPECT_EQ(black.outside, -3);
  EXPECT_EQ(ComputeFeatures(pos, kWhite).outside, 0);  // a1 b1 are one group
  // Left 0 when the groups are not asked for.
  EXPECT_EQ(ComputeFeatures(pos, kBlack, false).outside, 0);
}

TEST(EvaluationTest, SquareClassesCountPiecesBySymmetricSquare) {
  // Black on a8 and h1 (corners), b1, g8 and d5 (the centre class, not
  // counted), c3 (class c3) and e6 (class d3: file e is d's mirror, rank 6 is 3's).
  // White has one piece, on f3.
  const Position pos = Position::FromString("b5b1/8/4b3/3b4/8/2b2w2/8/1b5b b");
  const SideFeatures black = ComputeFeatures(pos, kBlack);
  EXPECT_EQ(black.square_a1, 2);
  EXPECT_EQ(black.square_b1, 2);
  EXPECT_EQ(black.square_c3, 1);
  EXPECT_EQ(black.square_d3, 1);
  EXPECT_EQ(black.square_c1 + black.square_d1 + black.square_b2 + black.square_c2 + black.square_d2, 0);
  EXPECT_EQ(black.pieces, 7);
}

TEST(EvaluationTest, WallsCountEdgePiecesHemmedIn) {
  // White b1 has black a2 b2 c2 on its inner side; white h8 (a corner) has black g7.
  const Position pos = Position::FromString("7w/6b1/8/8/8/8/bbb5/1w6 b");
  EXPECT_EQ(ComputeFeatures(pos, kBlack).walls, 2);
  EXPECT_EQ(ComputeFeatures(pos, kWhite).walls, 0);
}

}  // namespace
}  // namespace loa::ab
