// Encoding, policy index and symmetries (net/encoder.h, net/symmetry.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/bitboard.h"
#include "core/error.h"
#include "net/encoder.h"
#include "net/symmetry.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

std::vector<float> Encode(const Position& pos, InputFeatures f = InputFeatures::kBasic) {
  std::vector<float> planes(std::size_t(NumInputPlanes(f)) * kNumSquares);
  EncodePosition(pos, planes.data(), f);
  return planes;
}

TEST(EncoderTest, StartPositionPlanes) {
  Position start = Position::Start();
  std::vector<float> planes = Encode(start);
  auto at = [&](int plane, const char* square) { return planes[plane * kNumSquares + ParseSquare(square)]; };
  EXPECT_EQ(at(kOwnPlane, "b1"), 1.0f);  // Black to move: Black's pieces are "own"
  EXPECT_EQ(at(kOwnPlane, "a2"), 0.0f);
  EXPECT_EQ(at(kEnemyPlane, "a2"), 1.0f);
  EXPECT_EQ(at(kEnemyPlane, "d4"), 0.0f);
  // docs/RULES.md examples: the c-file holds 2 pieces, rank 1 holds 6, the
  // b1-h7 diagonal 2.
  EXPECT_EQ(at(kFileCountPlane, "c5"), 2.0f / 8);
  EXPECT_EQ(at(kRankCountPlane, "e1"), 6.0f / 8);
  EXPECT_EQ(at(kDiagonalCountPlane, "b1"), 2.0f / 8);
  EXPECT_EQ(at(kDiagonalCountPlane, "a1"), 0.0f);
  EXPECT_EQ(at(kAntiDiagonalCountPlane, "a8"), 0.0f);
  EXPECT_EQ(at(kOnesPlane, "h8"), 1.0f);
  float own = std::accumulate(planes.begin(), planes.begin() + kNumSquares, 0.0f);
  EXPECT_EQ(own, 12.0f);
}

TEST(EncoderTest, ConnectionPlanesOfTheStart) {
  const Position start = Position::Start();
  const std::vector<float> planes = Encode(start, InputFeatures::kConnection);
  ASSERT_EQ(planes.size(), std::size_t(kNumConnectionPlanes) * kNumSquares);
  // The basic planes come first, as the basic set writes them.
  const std::vector<float> basic = Encode(start);
  EXPECT_TRUE(std::equal(basic.begin(), basic.end(), planes.begin()));
  auto at = [&](int plane, const char* square) { return planes[plane * kNumSquares + ParseSquare(square)]; };
  // Each side: two groups of six (Black's ranks 1 and 8, White's files a and h).
  EXPECT_EQ(at(kOwnGroupSizePlane, "b1"), 6.0f / 12);
  EXPECT_EQ(at(kOwnGroupSizePlane, "a2"), 0.0f);
  EXPECT_EQ(at(kEnemyGroupSizePlane, "a2"), 6.0f / 12);
  EXPECT_EQ(at(kOwnGroupsPlane, "d4"), 1.0f / 11);
  EXPECT_EQ(at(kEnemyGroupsPlane, "h8"), 1.0f / 11);
  // Black's centre of mass is (4.5 files, 3.5 ranks) from a1: b1 lies 3.5
  // files and 3.5 ranks from it, d8 0.5 and 3.5.
  EXPECT_FLOAT_EQ(at(kOwnSpreadPlane, "b1"), 3.5f / 7);
  EXPECT_FLOAT_EQ(at(kOwnSpreadPlane, "d8"), 3.5f / 7);
  EXPECT_EQ(at(kOwnSpreadPlane, "d4"), 0.0f);
  // b1 moves to b3 (two pieces on the b-file), to d3 (two on the b1-h7
  // diagonal) and, along rank 1 (six pieces), nowhere.
  EXPECT_GT(at(kTargetPlane, "b3"), 0.0f);
  EXPECT_EQ(at(kTargetPlane, "b2"), 0.0f);
  MoveList moves;
  start.GenerateMoves(moves);
  float total = 0;
  for (int s = 0; s < kNumSquares; ++s) total += planes[kTargetPlane * kNumSquares + s];
  EXPECT_LE(total * 4, float(moves.size()));  // a quarter per move, at most 1 a square
  EXPECT_GT(total, 0.0f);
}

TEST(EncoderTest, GroupPlanesCountTheGroups) {
  for (const Position& pos : RandomPositions(300, 8, true)) {
    const std::vector<float> planes = Encode(pos, InputFeatures::kConnection);
    const Color us = pos.side_to_move();
    EXPECT_FLOAT_EQ(planes[kOwnGroupsPlane * kNumSquares], float(CountGroups(pos.pieces(us)) - 1) / 11);
    EXPECT_FLOAT_EQ(planes[kEnemyGroupsPlane * kNumSquares], float(CountGroups(pos.pieces(Opponent(us))) - 1) / 11);
    // A piece's group size, summed over its pieces, is the sum of squares of
    // the group sizes; one over each piece's size sums to the group count.
    float inverse = 0;
    for (int s = 0; s < kNumSquares; ++s)
      if (planes[kOwnGroupSizePlane * kNumSquares + s] > 0)
        inverse += 1 / (12 * planes[kOwnGroupSizePlane * kNumSquares + s]);
    EXPECT_NEAR(inverse, float(CountGroups(pos.pieces(us))), 1e-4);
  }
}

// Black a1, c1 and White h5, h8, Black to move: each side wins in one move
// (c1-b2; White, were it to move, h8-h6 or h5-h7). a1 does not: its
// diagonal holds h8 too, so it moves two squares (c3), as along the file
// (a2), and Black stays in two groups.
TEST(EncoderTest, ThreatPlanesShowTheWinsInOne) {
  const Position pos = Position::FromString("7w/8/8/7w/8/8/8/b1b5 b");
  const std::vector<float> planes = Encode(pos, InputFeatures::kThreat);
  ASSERT_EQ(planes.size(), std::size_t(kNumThreatPlanes) * kNumSquares);
  const std::vector<float> connection = Encode(pos, InputFeatures::kConnection);
  EXPECT_TRUE(std::equal(connection.begin(), connection.end(), planes.begin()));
  auto squares = [&](int plane) {
    std::string names;
    for (Square s = 0; s < kNumSquares; ++s)
      if (planes[plane * kNumSquares + s] != 0) names += SquareName(s) + " ";
    return names;
  };
  EXPECT_EQ(squares(kOwnWinFromPlane), "c1 ");
  EXPECT_EQ(squares(kOwnWinToPlane), "b2 ");
  EXPECT_EQ(squares(kEnemyWinFromPlane), "h5 h8 ");
  EXPECT_EQ(squares(kEnemyWinToPlane), "h6 h7 ");
  EXPECT_EQ(planes[kOwnMoveGroupsPlane * kNumSquares + ParseSquare("a1")], 2.0f / 12);
  EXPECT_EQ(planes[kOwnMoveGroupsPlane * kNumSquares + ParseSquare("c1")], 1.0f / 12);
  EXPECT_EQ(planes[kEnemyMoveGroupsPlane * kNumSquares + ParseSquare("h5")], 1.0f / 12);
  EXPECT_EQ(squares(kOwnMoveGroupsPlane), "a1 c1 ");
}

// The threat planes against moves made by Position::Apply, each side's as
// if it were to move, on every board size.
TEST(EncoderTest, ThreatPlanesMatchTheMovesMade) {
  for (int n : {8, 7, 6})
    for (const Position& pos : RandomPositions(200, 8, true, 200, n)) {
      const std::vector<float> planes = Encode(pos, InputFeatures::kThreat);
      for (int side = 0; side < 2; ++side) {
        const Color mover = side == 0 ? pos.side_to_move() : Opponent(pos.side_to_move());
        const Position view(pos.pieces(kBlack), pos.pieces(kWhite), mover, n);
        std::vector<float> win_from(kNumSquares), win_to(kNumSquares), fewest(kNumSquares);
        for (Square s = 0; s < kNumSquares; ++s)
          if (view.pieces(mover) & SquareBB(s)) fewest[s] = float(CountGroups(view.pieces(mover)));
        MoveList moves;
        view.GenerateMoves(moves);
        for (Move m : moves) {
          if (m.is_pass()) continue;
          const Position after = view.Apply(m);
          fewest[m.from()] = std::min(fewest[m.from()], float(CountGroups(after.pieces(mover))));
          if (after.IsUnited(mover)) win_from[m.from()] = win_to[m.to()] = 1;
        }
        for (float& f : fewest) f /= 12;
        auto plane = [&](int p) {
          return std::vector<float>(planes.begin() + p * kNumSquares, planes.begin() + (p + 1) * kNumSquares);
        };
        ASSERT_EQ(plane(side == 0 ? kOwnWinFromPlane : kEnemyWinFromPlane), win_from) << pos.ToString();
        ASSERT_EQ(plane(side == 0 ? kOwnWinToPlane : kEnemyWinToPlane), win_to) << pos.ToString();
        ASSERT_EQ(plane(side == 0 ? kOwnMoveGroupsPlane : kEnemyMoveGroupsPlane), fewest) << pos.ToString();
      }
    }
}

TEST(EncoderTest, InputSetsByName) {
  for (const std::string& name : InputFeaturesNames()) EXPECT_EQ(InputFeaturesName(InputFeaturesOf(name)), name);
  try {
    InputFeaturesOf("threats");
    ADD_FAILURE() << "an unknown input set was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "input features 'threats': one of basic, connection, threat");
  }
}

TEST(EncoderTest, SideToMoveSwapsOwnAndEnemy) {
  Position black = Position::Start();
  Position white(black.pieces(kBlack), black.pieces(kWhite), kWhite);
  std::vector<float> b = Encode(black), w = Encode(white);
  for (int s = 0; s < kNumSquares; ++s) {
    EXPECT_EQ(b[kOwnPlane * kNumSquares + s], w[kEnemyPlane * kNumSquares + s]);
    EXPECT_EQ(b[kEnemyPlane * kNumSquares + s], w[kOwnPlane * kNumSquares + s]);
  }
  EXPECT_TRUE(std::equal(b.begin() + 2 * kNumSquares, b.end(), w.begin() + 2 * kNumSquares));
}

TEST(EncoderTest, LineCountsMatchPopcounts) {
  for (const Position& pos : RandomPositions(500, 1, true)) {
    std::vector<float> planes = Encode(pos);
    for (int o = 0; o < kNumOrientations; ++o)
      for (Square s = 0; s < kNumSquares; ++s)
        ASSERT_EQ(planes[(kLineCountPlane + o) * kNumSquares + s],
                  PopCount(pos.occupied() & LineThrough(Orientation(o), s)) / 8.0f);
  }
}

TEST(EncoderTest, BatchIsPositionsOneAfterAnother) {
  std::vector<Position> positions = RandomPositions(100, 2, true);
  std::vector<float> batch(positions.size() * kInputSize);
  EncodePositions(positions.data(), int(positions.size()), batch.data());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    std::vector<float> one = Encode(positions[i]);
    ASSERT_TRUE(std::equal(one.begin(), one.end(), batch.begin() + i * kInputSize));
  }
}

TEST(PolicyIndexTest, RoundTripsEveryLegalMove) {
  for (const Position& pos : RandomPositions(1000, 3, true)) {
    MoveList moves;
    pos.GenerateMoves(moves);
    std::vector<bool> used(kPolicySize, false);
    for (Move m : moves) {
      if (m.is_pass()) continue;
      int index = PolicyIndexOf(m);
      ASSERT_GE(index, 0);
      ASSERT_LT(index, kPolicySize);
      ASSERT_FALSE(used[index]) << "two moves share policy index " << index;
      used[index] = true;
      ASSERT_EQ(MoveOfPolicyIndex(pos, index), m);
    }
    for (int i = 0; i < kPolicySize; ++i)
      if (!used[i]) {
        ASSERT_TRUE(MoveOfPolicyIndex(pos, i).is_null()) << pos.ToString() << " index " << i;
      }
  }
}

// A slow reference: move every square of b one by one.
Bitboard ReferenceTransform(int t, Bitboard b) {
  Bitboard out = 0;
  for (Square s = 0; s < kNumSquares; ++s)
    if (b & SquareBB(s)) out |= SquareBB(TransformSquare(t, s));
  return out;
}

TEST(SymmetryTest, GroupStructure) {
  for (int t = 0; t < kNumSymmetries; ++t) {
    for (Square s = 0; s < kNumSquares; ++s) {
      EXPECT_EQ(TransformSquare(InverseSymmetry(t), TransformSquare(t, s)), s) << "t=" << t;
      for (int d = 0; d < kNumDirections; ++d) {
        // One step in direction d maps to one step in the transformed direction.
        Square next = TargetSquare(s, Direction(d), 1);
        if (next == kNoSquare) continue;
        EXPECT_EQ(TransformSquare(t, next),
                  TargetSquare(TransformSquare(t, s), TransformDirection(t, Direction(d)), 1));
      }
    }
    for (int i = 0; i < kPolicySize; ++i)
      EXPECT_EQ(TransformPolicyIndex(InverseSymmetry(t), TransformPolicyIndex(t, i)), i);
  }
  // The 8 symmetries are distinct.
  std::vector<Square> images;
  for (int t = 0; t < kNumSymmetries; ++t) images.push_back(TransformSquare(t, ParseSquare("b1")));
  std::sort(images.begin(), images.end());
  EXPECT_EQ(std::unique(images.begin(), images.end()), images.end());
}

TEST(SymmetryTest, BitboardTransformMatchesSquares) {
  Rng rng(4);
  for (int i = 0; i < 200; ++i) {
    Bitboard b = rng.Next();
    for (int t = 0; t < kNumSymmetries; ++t) ASSERT_EQ(TransformBitboard(t, b), ReferenceTransform(t, b)) << t;
    for (int n : {6, 7}) {  // the n x n corner turns within itself (docs/RULES.md, Board sizes)
      const Bitboard on_board = b & BoardMask(n);
      for (int t = 0; t < kNumSymmetries; ++t) {
        Bitboard expected = 0;
        for (Bitboard rest = on_board; rest;) expected |= SquareBB(TransformSquare(t, PopLowest(rest), n));
        ASSERT_EQ(TransformBitboard(t, on_board, n), expected) << n << " " << t;
        ASSERT_EQ(expected & ~BoardMask(n), 0u);
      }
    }
  }
}

TEST(SymmetryTest, MovesCommuteWithSymmetries) {
  for (int n : {8, 7, 6})
    for (const Position& pos : RandomPositions(n == 8 ? 500 : 200, 5, true, 200, n)) {
      MoveList moves;
      pos.GenerateMoves(moves);
      for (int t = 0; t < kNumSymmetries; ++t) {
        Position image = TransformPosition(t, pos);
        ASSERT_EQ(image.size(), n);
        MoveList image_moves;
        image.GenerateMoves(image_moves);
        ASSERT_EQ(image_moves.size(), moves.size());
        for (Move m : moves) {
          Move mapped = TransformMove(t, m, n);
          ASSERT_TRUE(image_moves.contains(mapped));
          ASSERT_EQ(image.Apply(mapped), TransformPosition(t, pos.Apply(m)));
          if (!m.is_pass()) {
            ASSERT_EQ(PolicyIndexOf(mapped), TransformPolicyIndex(t, PolicyIndexOf(m), n));
          }
        }
      }
    }
}

TEST(SymmetryTest, EncoderCommutesWithSymmetries) {
  for (int n : {8, 7, 6})
    for (InputFeatures f : {InputFeatures::kBasic, InputFeatures::kConnection, InputFeatures::kThreat}) {
      for (const Position& pos : RandomPositions(n == 8 ? 500 : 200, 6, true, 200, n)) {
        std::vector<float> planes = Encode(pos, f);
        for (int t = 0; t < kNumSymmetries; ++t) {
          std::vector<float> moved(planes.size());
          TransformPlanes(t, planes.data(), moved.data(), NumInputPlanes(f), n);
          ASSERT_EQ(moved, Encode(TransformPosition(t, pos), f))
              << InputFeaturesName(f) << ": symmetry " << t << " of " << pos.ToString();
        }
      }
    }
}

TEST(EncoderTest, ASmallerBoardIsTheCornerOfThePlanes) {
  const Position six = Position::Start(StartKind::kStandard, 6);
  for (InputFeatures f : {InputFeatures::kBasic, InputFeatures::kConnection, InputFeatures::kThreat}) {
    const std::vector<float> planes = Encode(six, f);
    for (int p = 0; p < NumInputPlanes(f); ++p)
      for (Square s = 0; s < kNumSquares; ++s) {
        const bool on = (six.board() & SquareBB(s)) != 0;
        if (!on) {
          ASSERT_EQ(planes[size_t(p * kNumSquares + s)], 0.0f) << p << " " << SquareName(s);
        }
        if (p == kOnesPlane) {
          ASSERT_EQ(planes[size_t(p * kNumSquares + s)], on ? 1.0f : 0.0f);
        }
      }
  }
}

TEST(DecodeTest, PriorsAreASoftmaxOverLegalMovesOnly) {
  Position pos = Position::Start();
  std::vector<float> logits(kPolicySize, 50.0f);  // illegal slots must not matter
  MoveList moves;
  pos.GenerateMoves(moves);
  logits[moves[0].PolicyIndex()] = std::log(3.0f);
  for (int i = 1; i < moves.size(); ++i) logits[moves[i].PolicyIndex()] = 0.0f;
  float value[3] = {1.0f, 0.0f, 1.0f};
  EvalOutput out;
  DecodeOutput(pos, logits.data(), value, 0.3f, &out);
  ASSERT_EQ(out.num_moves, moves.size());
  EXPECT_NEAR(out.priors[0], 3.0f / (3 + moves.size() - 1), 1e-6);
  EXPECT_NEAR(std::accumulate(out.priors, out.priors + out.num_moves, 0.0f), 1.0f, 1e-5);
  EXPECT_NEAR(out.wdl[0], out.wdl[2], 1e-7);
  EXPECT_NEAR(out.wdl[0] + out.wdl[1] + out.wdl[2], 1.0f, 1e-6);
  EXPECT_NEAR(out.moves_left, 0.3f * kMovesLeftScale, 1e-4);
}

TEST(DecodeTest, PassAloneHasPriorOne) {
  // White's a1 and h8 are each boxed in by Black pieces they may not jump.
  Position pass_only = testing::P("6bw/6bb/8/8/8/8/bb6/wb6 w");
  MoveList moves;
  pass_only.GenerateMoves(moves);
  ASSERT_EQ(moves.size(), 1);
  ASSERT_TRUE(moves[0].is_pass());
  std::vector<float> logits(kPolicySize, 0.0f);
  float value[3] = {0, 0, 0};
  EvalOutput out;
  DecodeOutput(pass_only, logits.data(), value, -1.0f, &out);
  EXPECT_EQ(out.num_moves, 1);
  EXPECT_EQ(out.priors[0], 1.0f);
  EXPECT_EQ(out.moves_left, 0.0f);
}

}  // namespace
}  // namespace loa
