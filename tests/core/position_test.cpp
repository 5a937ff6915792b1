// Position strings, start positions, the united test and notation.

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/notation.h"
#include "core/position.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

using testing::P;

constexpr const char* kStandard = "1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b";

// Expects Position::FromString(text) to throw a ParseError whose message
// contains `needle`.
void ExpectBadPosition(const std::string& text, const std::string& needle) {
  try {
    Position::FromString(text);
    ADD_FAILURE() << "accepted '" << text << "'";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(Excerpt(text)), std::string::npos)
        << "the message names the position: " << e.what();
  }
}

TEST(PositionString, StartPositionsMatchRules) {
  EXPECT_EQ(Position::Start().ToString(), kStandard);
  EXPECT_EQ(P(kStandard), Position::Start());
  const Position eggs = Position::Start(StartKind::kScrambled);
  EXPECT_EQ(eggs.ToString(), "1wbwbwb1/b6w/w6b/b6w/w6b/b6w/w6b/1bwbwbw1 b");
  EXPECT_EQ(PopCount(eggs.pieces(kBlack)), 12);
  EXPECT_EQ(PopCount(eggs.pieces(kWhite)), 12);
  EXPECT_EQ(eggs.occupied(), Position::Start().occupied());
}

TEST(PositionString, RoundTripsOnRandomPositions) {
  for (const Position& pos : RandomPositions(1000, 3, true)) {
    const Position back = P(pos.ToString());
    ASSERT_EQ(back, pos) << pos.ToString();
    ASSERT_EQ(back.hash(), pos.hash());
  }
  EXPECT_EQ(P("1BBBBBB1/W6W/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 W").ToString(), "1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 w");
}

TEST(PositionString, MalformedInputGivesAClearError) {
  ExpectBadPosition("1bbbbbb/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b", "rank 8 has 7 squares");
  ExpectBadPosition("1bbbbbb1/w7w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b", "rank 7 has more than 8");
  ExpectBadPosition("1bbxbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b", "unknown letter 'x'");
  // A control character is written out, so that the message goes on past it.
  ExpectBadPosition(std::string("1bb\0bbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b", 43),
                    "unknown letter '\\x00' in rank 8");
  ExpectBadPosition("1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1", "missing side to move");
  ExpectBadPosition("1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 x", "side to move");
  ExpectBadPosition("8/w6w/w6w/w6w/w6w/w6w/w6w/8 b", "black has no piece");
  ExpectBadPosition("1bbbbbb1/8/8/8/8/8/8/1bbbbbb1 w", "white has no piece");
  ExpectBadPosition("1bbbbbb1/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b",
                    "rank 7 has more than 7 (the board's size: its number of ranks)");
  ExpectBadPosition("bbbbbbbb/bbbbbbbb/8/8/8/8/8/w7 b", "more than 12");
}

TEST(United, SinglePieceAndGroups) {
  EXPECT_TRUE(IsConnected(SquareBB(27)));
  EXPECT_TRUE(IsConnected(SquareBB(0) | SquareBB(9) | SquareBB(18)));  // a1 b2 c3: diagonal chain
  EXPECT_FALSE(IsConnected(SquareBB(0) | SquareBB(2)));                // a1 c1
  EXPECT_FALSE(IsConnected(SquareBB(7) | SquareBB(8)));                // h1 a2: no wrap-around
  EXPECT_FALSE(Position::Start().IsUnited(kBlack));
  EXPECT_EQ(CountGroups(Position::Start().pieces(kBlack)), 2);
  EXPECT_EQ(CountGroups(Position::Start().pieces(kWhite)), 2);
  // A snake that needs many flood-fill steps: rank 1, h2, rank 3.
  const Bitboard snake = kRank1 | SquareBB(ParseSquare("h2")) | (kRank1 << 16);
  EXPECT_TRUE(IsConnected(snake));
  EXPECT_FALSE(IsConnected(snake & ~SquareBB(ParseSquare("h2"))));
  EXPECT_EQ(CountGroups(snake & ~SquareBB(ParseSquare("h2"))), 2);
  EXPECT_TRUE(P("8/8/8/8/8/8/1w6/b7 b").IsUnited(kBlack));  // a single piece
}

TEST(Notation, FormatAndParse) {
  const Position start = Position::Start();
  const Move m = ParseMove("b1-d3", start);
  EXPECT_EQ(FormatMove(m), "b1-d3");
  EXPECT_EQ(ParseMove("B1-D3", start), m);
  EXPECT_EQ(ParseMove(" b1xd3 ", start), m);  // the separator is not checked
  EXPECT_EQ(ParseMove("b1:d3", start), m);
  EXPECT_EQ(FormatMove(Move::Pass()), "pass");
  const Position capture = P("8/8/8/4b3/8/8/8/b2w1w1b w");
  EXPECT_EQ(FormatMove(ParseMove("d1:h1", capture)), "d1xh1");
}

// Expects ParseMove(text, pos) to throw naming the move and the position.
void ExpectBadMove(const std::string& text, const Position& pos, const std::string& needle) {
  try {
    ParseMove(text, pos);
    ADD_FAILURE() << "accepted '" << text << "'";
  } catch (const ParseError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_NE(what.find("'" + text + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(pos.ToString()), std::string::npos) << what;
  }
}

TEST(Notation, MalformedAndIllegalMovesNameMoveAndPosition) {
  const Position start = Position::Start();
  ExpectBadMove("i1-a1", start, "'i1' is not a square");
  ExpectBadMove("b1-b9", start, "'b9' is not a square");
  ExpectBadMove("b1b", start, "expected FROM-TO");
  ExpectBadMove("b1=b3", start, "expected FROM-TO");
  ExpectBadMove("b1b4", start, "moves 2 squares, not 3");
  ExpectBadMove("a2-a4", start, "no black piece on a2");
  ExpectBadMove("b1-c3", start, "not along a rank, file or diagonal");
  ExpectBadMove("b1-b4", start, "moves 2 squares, not 3");
  ExpectBadMove("pass", start, "a pass is legal only");
  ExpectBadMove("d1xh1", P("8/8/8/4b3/8/8/8/b2w1w1b b"), "no black piece on d1");
  ExpectBadMove("a1-e1", P("8/8/8/4b3/8/8/8/b2w1w1b b"), "jumps over an enemy piece");
}

// UCI's and cutechess's notation: FROMTO without a mark, a capture too.
TEST(Notation, MovesWithoutAMarkReadAndWrite) {
  const Position start = Position::Start();
  const Move m = ParseMove("b1d3", start);
  EXPECT_EQ(m, ParseMove("b1-d3", start));
  EXPECT_EQ(FormatMoveUnmarked(m), "b1d3");
  EXPECT_EQ(ParseMove("B1D3", start, CaptureMark::kCheck), m);  // no mark to check
  const Position capture = P("8/8/8/4b3/8/8/8/b1w5 b");
  const Move x = ParseMove("a1c1", capture, CaptureMark::kCheck);
  EXPECT_TRUE(x.is_capture());
  EXPECT_EQ(FormatMove(x), "a1xc1");
  EXPECT_EQ(FormatMoveUnmarked(x), "a1c1");
  EXPECT_EQ(FormatMoveUnmarked(Move::Pass()), "pass");
}

}  // namespace
}  // namespace loa
