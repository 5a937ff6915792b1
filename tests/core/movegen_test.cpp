// Move generation against the rules of docs/RULES.md, one rule per position, and
// against an independent square-by-square reference generator.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.h"
#include "core/notation.h"
#include "core/position.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

using testing::P;

std::set<std::string> MoveNames(const Position& pos) {
  MoveList moves;
  pos.GenerateMoves(moves);
  std::set<std::string> names;
  for (Move m : moves) names.insert(FormatMove(m));
  return names;
}

// docs/RULES.md rules 2-5 read literally: walk the line square by square.
std::set<std::string> ReferenceMoves(const Position& pos) {
  const Color us = pos.side_to_move();
  auto at = [&](int f, int r) {
    Bitboard b = SquareBB(MakeSquare(f, r));
    return (pos.pieces(us) & b) ? 1 : (pos.pieces(Opponent(us)) & b) ? 2 : 0;
  };
  std::set<std::string> names;
  for (Square s = 0; s < 64; ++s) {
    if (at(FileOf(s), RankOf(s)) != 1) continue;
    for (int d = 0; d < 8; ++d) {
      int count = 1;  // the piece itself
      for (int sign : {1, -1}) {
        for (int f = FileOf(s) + sign * kFileStep[d], r = RankOf(s) + sign * kRankStep[d]; OnBoard(f, r);
             f += sign * kFileStep[d], r += sign * kRankStep[d])
          count += at(f, r) != 0;
      }
      const int tf = FileOf(s) + count * kFileStep[d], tr = RankOf(s) + count * kRankStep[d];
      if (!OnBoard(tf, tr) || at(tf, tr) == 1) continue;
      bool jumps_enemy = false;
      for (int i = 1; i < count; ++i)
        jumps_enemy |= at(FileOf(s) + i * kFileStep[d], RankOf(s) + i * kRankStep[d]) == 2;
      if (jumps_enemy) continue;
      names.insert(SquareName(s) + (at(tf, tr) == 2 ? "x" : "-") + SquareName(MakeSquare(tf, tr)));
    }
  }
  if (names.empty()) names.insert("pass");
  return names;
}

TEST(MoveGen, StartHas36MovesAndTheRulesExamples) {
  const Position start = Position::Start();
  const auto names = MoveNames(start);
  EXPECT_EQ(names.size(), 36u);
  EXPECT_EQ(start.CountMoves(), 36);
  for (const char* m : {"c8-c6", "b1-b3", "b1-d3", "b1-h1"}) EXPECT_TRUE(names.count(m)) << m;
}

TEST(MoveGen, JumpsOwnPiecesButNotEnemyPieces) {
  // Rank 1 holds "x . . o . o . x" (docs/RULES.md's example): 4 pieces.
  const Position black = P("8/8/8/4b3/8/8/8/b2w1w1b b");
  EXPECT_TRUE(black.MoveAt(ParseSquare("a1"), kEast).is_null());  // would jump d1
  EXPECT_TRUE(black.MoveAt(ParseSquare("h1"), kWest).is_null());  // would jump f1
  const Position white = P("8/8/8/4b3/8/8/8/b2w1w1b w");
  const auto names = MoveNames(white);
  EXPECT_TRUE(names.count("f1-b1"));  // jumps its own d1
  EXPECT_TRUE(names.count("d1xh1"));  // jumps its own f1, captures
  EXPECT_FALSE(names.count("d1-a1"));
}

TEST(MoveGen, NeverLandsOnOwnPieceNorLeavesTheBoard) {
  const Position pos = P("8/8/8/4w1w1/8/8/8/b1b5 b");
  const auto names = MoveNames(pos);
  EXPECT_FALSE(names.count("a1-c1"));
  EXPECT_TRUE(pos.MoveAt(ParseSquare("c1"), kWest).is_null());  // would land on a1
  EXPECT_TRUE(pos.MoveAt(ParseSquare("a1"), kWest).is_null());
  EXPECT_TRUE(pos.MoveAt(ParseSquare("a1"), kSouth).is_null());
  EXPECT_TRUE(Position::Start().MoveAt(ParseSquare("b1"), kWest).is_null());  // 6 squares west of b1
  try {
    ParseMove("a1-c1", pos);
    FAIL() << "a1-c1 lands on c1";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("own piece"), std::string::npos) << e.what();
  }
}

TEST(MoveGen, CaptureRemovesThePiece) {
  const Position pos = P("8/8/8/4b3/8/8/8/b2w1w1b w");
  const Move m = ParseMove("d1xh1", pos);
  EXPECT_TRUE(m.is_capture());
  const Position next = pos.Apply(m);
  EXPECT_EQ(PopCount(next.pieces(kBlack)), 2);
  EXPECT_TRUE(next.pieces(kWhite) & SquareBB(ParseSquare("h1")));
  EXPECT_EQ(next.side_to_move(), kBlack);
}

TEST(MoveGen, PassIsTheOnlyMoveWhenBlocked) {
  const Position pos = P("6wb/6ww/8/8/8/8/ww6/bw6 b");
  MoveList moves;
  pos.GenerateMoves(moves);
  ASSERT_EQ(moves.size(), 1);
  EXPECT_TRUE(moves[0].is_pass());
  EXPECT_TRUE(pos.IsLegal(Move::Pass()));
  EXPECT_EQ(pos.Apply(Move::Pass()).side_to_move(), kWhite);
  EXPECT_EQ(pos.Apply(Move::Pass()).pieces(kBlack), pos.pieces(kBlack));
  EXPECT_FALSE(Position::Start().IsLegal(Move::Pass()));
}

TEST(MoveGen, MatchesTheReferenceGeneratorOnRandomPositions) {
  int checked = 0;
  for (const Position& pos : RandomPositions(3000, 7, true)) {
    ASSERT_EQ(MoveNames(pos), ReferenceMoves(pos)) << pos.ToString();
    MoveList moves;
    pos.GenerateMoves(moves);
    ASSERT_EQ(pos.CountMoves(), moves.size()) << pos.ToString();
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

// Random placements of up to 12 pieces a side: dense boards with full lines,
// which playouts from the start rarely reach.
std::vector<Position> RandomPlacements(int count, uint32_t seed) {
  Rng rng(seed);
  std::vector<Position> out;
  for (int i = 0; i < count; ++i) {
    std::vector<Square> squares(64);
    for (Square s = 0; s < 64; ++s) squares[s] = s;
    for (int i = 63; i > 0; --i) std::swap(squares[i], squares[rng.Below(i + 1)]);  // Fisher-Yates
    const int black = 1 + rng.Below(12), white = 1 + rng.Below(12);
    Bitboard b = 0, w = 0;
    for (int k = 0; k < black; ++k) b |= SquareBB(squares[k]);
    for (int k = black; k < black + white; ++k) w |= SquareBB(squares[k]);
    out.emplace_back(b, w, Color(rng.Below(2)));
  }
  return out;
}

TEST(MoveGen, MatchesTheReferenceGeneratorOnRandomPlacements) {
  for (const Position& pos : RandomPlacements(20000, 17)) {
    ASSERT_EQ(MoveNames(pos), ReferenceMoves(pos)) << pos.ToString();
    ASSERT_EQ(pos.CountMoves(), int(MoveNames(pos).size())) << pos.ToString();
  }
}

TEST(MoveGen, AFullLineOfEightMovesNothingAlongIt) {
  // The a8-h1 anti-diagonal holds eight pieces: a move along it would go 8
  // squares, off the board, whatever the direction.
  const Position pos = P("b7/1w6/2b5/3w4/4b3/5w2/6b1/7w b");
  for (Direction dir : {kSouthEast, kNorthWest})
    for (const char* from : {"a8", "c6", "e4", "g2"}) EXPECT_TRUE(pos.MoveAt(ParseSquare(from), dir).is_null()) << from;
  EXPECT_EQ(MoveNames(pos), ReferenceMoves(pos));
}

TEST(MoveGen, PolicyIndexIsUniqueAndLeadsBack) {
  for (const Position& pos : RandomPositions(500, 11, true)) {
    MoveList moves;
    pos.GenerateMoves(moves);
    if (moves[0].is_pass()) continue;
    std::set<int> seen;
    for (Move m : moves) {
      EXPECT_TRUE(seen.insert(m.PolicyIndex()).second);
      EXPECT_EQ(pos.MoveAt(PolicyFrom(m.PolicyIndex()), PolicyDirection(m.PolicyIndex())), m);
      EXPECT_TRUE(pos.IsLegal(m));
    }
  }
}

TEST(MoveGen, ApplyKeepsTheHashIncrementally) {
  for (const Position& pos : RandomPositions(500, 13, true)) {
    MoveList moves;
    pos.GenerateMoves(moves);
    for (Move m : moves) {
      const Position next = pos.Apply(m);
      const Position fresh(next.pieces(kBlack), next.pieces(kWhite), next.side_to_move());
      ASSERT_EQ(next.hash(), fresh.hash());
      ASSERT_EQ((next.pieces(kBlack) & next.pieces(kWhite)), 0u);
    }
  }
}

}  // namespace
}  // namespace loa
