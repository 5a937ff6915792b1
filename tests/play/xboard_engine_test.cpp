// `loaz xboard`: the features, moves on go, usermove and playother, the
// dummy move before setboard, the result claimed, undo, and bad input
// answered with CECP's error lines.

#include "play/xboard_engine.h"

#include <gtest/gtest.h>

#include <sstream>

#include "alphabeta/search_types.h"
#include "core/notation.h"
#include "tests/play/talk.h"

namespace loa {
namespace {

constexpr const char* kStartFen = "1pppppp1/P6P/P6P/P6P/P6P/P6P/P6P/1pppppp1 b - - 0 1";

std::vector<std::string> Talk(const std::string& input, const std::string& spec = "ab:depth=2") {
  return testing::TalkTo<XboardEngine>(input, spec);
}

std::vector<std::string> Moves(const std::vector<std::string>& lines) {
  std::vector<std::string> moves;
  for (const std::string& l : lines)
    if (l.rfind("move ", 0) == 0) moves.push_back(l.substr(5));
  return moves;
}

bool HasLineStarting(const std::vector<std::string>& lines, const std::string& start) {
  for (const std::string& l : lines)
    if (l.rfind(start, 0) == 0) return true;
  return false;
}

TEST(XboardEngineTest, TheFeaturesDeclareTheVariantAndTheProtocol) {
  const auto lines = Talk("xboard\nprotover 2\n", "random");
  ASSERT_EQ(lines.size(), 1u);
  for (const char* feature : {"feature ", "variants=\"linesofaction\"", " setboard=1", " usermove=1", " ping=1",
                              " myname=\"LOAZero\"", "option=\"Player -string random\"", " done=1"})
    EXPECT_NE(lines[0].find(feature), std::string::npos) << feature;
}

TEST(XboardEngineTest, ItPlaysTheSideToMoveOnGoAndAnswersUserMoves) {
  const auto lines = Talk("new\nvariant linesofaction\nforce\nlevel 0 0:10 0.1\ngo\n");
  ASSERT_EQ(Moves(lines).size(), 1u);
  EXPECT_NO_THROW(ParseMove(Moves(lines)[0], Position::Start()));  // Black's, the first move
  // playother: the engine takes White and answers Black's move.
  const auto other = Talk("new\nforce\nplayother\nusermove b1d3\n");
  ASSERT_EQ(Moves(other).size(), 1u);
  Position after = Position::Start().Apply(ParseMove("b1d3", Position::Start()));
  EXPECT_NO_THROW(ParseMove(Moves(other)[0], after));
  // In force mode it only keeps the moves.
  EXPECT_TRUE(Moves(Talk("new\nforce\nusermove b1d3\nusermove a2c2\n")).empty());
}

TEST(XboardEngineTest, TheDummyMoveBeforeSetboardIsIgnored) {
  // cutechess puts an engine on White's side of a FEN with Black to move so.
  const auto lines =
      Talk(std::string("new\nvariant linesofaction\nforce\nb2b3\nsetboard ") + kStartFen + "\nusermove b1d3\ngo\n");
  EXPECT_FALSE(HasLineStarting(lines, "Illegal")) << lines[0];
  EXPECT_FALSE(HasLineStarting(lines, "Error"));
  ASSERT_EQ(Moves(lines).size(), 1u);
  Position after = Position::Start().Apply(ParseMove("b1d3", Position::Start()));
  EXPECT_NO_THROW(ParseMove(Moves(lines)[0], after));  // White's
}

TEST(XboardEngineTest, AMoveThatEndsTheGameIsClaimedInTheChessManner) {
  // Black unites its two pieces by a1-b2: 0-1, Black wins.
  const auto lines = Talk("new\nforce\nsetboard 8/8/8/8/8/P7/7P/p1p5 b - - 0 1\nusermove a1b2\n");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "0-1 {Black wins by united}");
  // The engine's own winning move is claimed after it.
  const auto own = Talk("new\nforce\nsetboard 8/8/8/8/8/P7/7P/p1p5 b - - 0 1\ngo\n");
  ASSERT_EQ(Moves(own).size(), 1u);
  EXPECT_EQ(own.back(), "0-1 {Black wins by united}");
}

TEST(XboardEngineTest, WhiteFirstSwapsTheColoursOfFensAndResults) {
  // XBoard's White moves first: its FEN of the start has the first mover's men upper case.
  XboardEngine engine("ab:depth=2", /*white_first=*/true);
  std::istringstream in("new\nvariant linesofaction\nforce\nsetboard 8/8/8/8/8/p7/7p/P1P5 w - - 0 1\nusermove a1b2\n");
  std::ostringstream out;
  engine.Run(in, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("setup (..........P..........."), std::string::npos) << text;
  EXPECT_NE(text.find(" 8x8+0_fairy 1PPPPPP1/p6p/p6p/p6p/p6p/p6p/p6p/1PPPPPP1 w - - 0 1\n"), std::string::npos) << text;
  // The first mover (LOA's Black) united: XBoard's White wins.
  EXPECT_NE(text.find("1-0 {White wins by united}"), std::string::npos) << text;
}

TEST(XboardEngineTest, APingWhileOnMoveIsAnsweredAfterTheMove) {
  const auto lines = Talk("new\nforce\ngo\nping 3\n", "ab:depth=3");
  const auto move =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("move ", 0) == 0; });
  const auto pong = std::find(lines.begin(), lines.end(), "pong 3");
  ASSERT_NE(move, lines.end());
  ASSERT_NE(pong, lines.end());
  EXPECT_LT(move - lines.begin(), pong - lines.begin());
}

TEST(XboardEngineTest, UndoTakesAMoveBack) {
  // After an undo Black is to move again, and go plays for Black.
  const auto lines = Talk("new\nforce\nusermove b1d3\nundo\ngo\n");
  ASSERT_EQ(Moves(lines).size(), 1u);
  EXPECT_NO_THROW(ParseMove(Moves(lines)[0], Position::Start()));
}

TEST(XboardEngineTest, BadInputGetsCecpErrorLines) {
  const auto lines = Talk(
      "new\nforce\nfrobnicate\nusermove b1d3\nusermove b1d3\nsetboard 1xxxxxx1/8 b\nvariant chess\n"
      "level 0 soon 0\nst -1\noption Hash=16\nping 9\n");
  EXPECT_TRUE(HasLineStarting(lines, "Error (unknown command): frobnicate"));
  EXPECT_TRUE(HasLineStarting(lines, "Illegal move: b1d3"));  // the second: White has no piece there
  EXPECT_TRUE(HasLineStarting(lines, "tellusererror Illegal position: "));
  EXPECT_TRUE(HasLineStarting(lines, "Error (unsupported variant): chess"));
  EXPECT_TRUE(HasLineStarting(lines, "Error (bad number): level soon"));
  EXPECT_TRUE(HasLineStarting(lines, "Error (bad number): st -1"));
  EXPECT_TRUE(HasLineStarting(lines, "Error (no such option): Hash"));
  EXPECT_EQ(lines.back(), "pong 9");
}

TEST(XboardEngineTest, ThinkingLinesScoreInCentipawnsAndCentiseconds) {
  MoveAnalysis ab;
  ab.available = true;
  ab.depth = 5;
  ab.score = 35;
  ab.seconds = 1.5;
  ab.nodes = 1234;
  ab.pv = {ParseMove("b1d3", Position::Start())};
  EXPECT_EQ(XboardThinking(ab), "5 35 150 1234 b1d3");
  ab.score = ab::kWinScore - 3;  // a win in 3 plies: 2 moves
  EXPECT_EQ(XboardThinking(ab), "5 100002 150 1234 b1d3");
  ab.score = -(ab::kWinScore - 4);
  EXPECT_EQ(XboardThinking(ab), "5 -100002 150 1234 b1d3");
  EXPECT_EQ(XboardThinking(MoveAnalysis()), "");
}

}  // namespace
}  // namespace loa
