// `loaz uci`: the handshake, positions by startpos and by cutechess's FEN,
// go with each kind of limit, stop, and bad input answered by an info string.

#include "play/uci_engine.h"

#include <gtest/gtest.h>

#include <sstream>

#include "alphabeta/search_types.h"
#include "core/notation.h"
#include "tests/play/talk.h"

namespace loa {
namespace {

std::vector<std::string> Talk(const std::string& input, const std::string& spec = "ab:depth=2") {
  return testing::TalkTo<UciEngine>(input, spec);
}

bool Has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// The moves of the bestmove lines, in order.
std::vector<std::string> BestMoves(const std::vector<std::string>& lines) {
  std::vector<std::string> moves;
  for (const std::string& l : lines)
    if (l.rfind("bestmove ", 0) == 0) moves.push_back(l.substr(9));
  return moves;
}

std::string InfoStringWith(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.rfind("info string ", 0) == 0 && l.find(part) != std::string::npos) return l;
  return "";
}

TEST(UciEngineTest, TheHandshakeDeclaresTheVariant) {
  const auto lines = Talk("uci\nisready\nquit\n", "random");
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "id name LOAZero");
  EXPECT_TRUE(Has(lines, "option name UCI_Variant type combo default linesofaction var linesofaction"));
  EXPECT_TRUE(Has(lines, "option name Player type string default random"));
  EXPECT_TRUE(Has(lines, "option name Threads type spin default 1 min 1 max 256"));
  EXPECT_TRUE(Has(Talk("uci\n", "ab:depth=2,threads=2"), "option name Threads type spin default 2 min 1 max 256"));
  EXPECT_TRUE(Has(lines, "uciok"));
  EXPECT_EQ(lines.back(), "readyok");
}

TEST(UciEngineTest, ItMovesFromAPositionByStartposOrByFen) {
  for (const std::string position : {"position startpos moves b1d3",
                                     "position fen 1pppppp1/P6P/P6P/P6P/P6P/P6P/P6P/1pppppp1 b - - 0 1 moves b1d3"}) {
    const auto lines = Talk("ucinewgame\n" + position + "\ngo nodes 2000\nisready\n");
    const auto moves = BestMoves(lines);
    ASSERT_EQ(moves.size(), 1u) << position;
    Position after_b1d3 = Position::Start();
    after_b1d3 = after_b1d3.Apply(ParseMove("b1d3", after_b1d3));
    const Move m = ParseMove(moves[0], after_b1d3);  // White's, legal, FROMTO
    EXPECT_EQ(moves[0], FormatMoveUnmarked(m));
    EXPECT_EQ(moves[0].size(), 4u);
  }
}

TEST(UciEngineTest, ClockMovetimeAndInfinite) {
  const auto timed = Talk("position startpos\ngo wtime 10000 btime 10000 winc 100 binc 100\n");
  ASSERT_EQ(BestMoves(timed).size(), 1u);
  EXPECT_NO_THROW(ParseMove(BestMoves(timed)[0], Position::Start()));
  const auto movetime = Talk("position startpos\ngo movetime 30\n");
  EXPECT_EQ(BestMoves(movetime).size(), 1u);
  // An infinite search answers once, when stopped.
  const auto infinite = Talk("position startpos\ngo infinite\nstop\nisready\n");
  ASSERT_EQ(BestMoves(infinite).size(), 1u);
  EXPECT_EQ(infinite.back(), "readyok");
  // Each search tells what it found.
  bool info = false;
  for (const std::string& l : movetime) info |= l.rfind("info depth ", 0) == 0 && l.find(" pv ") != std::string::npos;
  EXPECT_TRUE(info);
}

TEST(UciEngineTest, BadInputIsAnInfoStringAndTheEngineGoesOn) {
  const auto lines = Talk(
      "frobnicate\n"
      "position startpos moves b1d3 b1d3\n"
      "position fen 1xxxxxx1/8/8/8/8/8/8/8 b\n"
      "setoption name Threads value lots\n"
      "setoption name Player value nosuchkind\n"
      "setoption name UCI_Variant value chess\n"
      "setoption name Hash value 16\n"
      "go wtime soon\n"
      "position startpos moves b1d3\n"
      "go nodes 500\n"
      "isready\n");
  EXPECT_NE(InfoStringWith(lines, "unknown command 'frobnicate'"), "");
  EXPECT_NE(InfoStringWith(lines, "move 'b1d3'"), "");  // White has no piece on b1
  EXPECT_NE(InfoStringWith(lines, "position '1xxxxxx1"), "");
  EXPECT_NE(InfoStringWith(lines, "Threads: 'lots'"), "");
  EXPECT_NE(InfoStringWith(lines, "nosuchkind"), "");
  EXPECT_NE(InfoStringWith(lines, "'chess' is not linesofaction"), "");
  EXPECT_NE(InfoStringWith(lines, "no option 'Hash'"), "");
  EXPECT_NE(InfoStringWith(lines, "go wtime 'soon' is not a number"), "");
  // The good position after the bad ones: a White move.
  const auto moves = BestMoves(lines);
  ASSERT_EQ(moves.size(), 1u);
  Position after = Position::Start();
  after = after.Apply(ParseMove("b1d3", after));
  EXPECT_NO_THROW(ParseMove(moves[0], after));
  EXPECT_TRUE(Has(lines, "readyok"));  // at once, while the search may still run
}

TEST(UciEngineTest, AGoThatCannotSearchIsAnsweredAtOnce) {
  // A spec that makes no player: the go is answered, with the reason, not left waiting.
  const auto lines = Talk("position startpos\ngo wtime 1000 btime 1000\n", "mcts:threads=1,no_such_key=2");
  EXPECT_NE(InfoStringWith(lines, "no_such_key"), "");
  ASSERT_EQ(BestMoves(lines).size(), 1u);
  EXPECT_EQ(BestMoves(lines)[0], "0000");
}

TEST(UciEngineTest, AFinishedGameAnswersTheNullMove) {
  // Black's two pieces are united: the game is over before White moves.
  const auto lines = Talk("position fen 8/8/8/8/8/8/PP6/pp6 w - - 0 1\ngo nodes 10\n");
  EXPECT_NE(InfoStringWith(lines, "the game is over"), "");
  ASSERT_EQ(BestMoves(lines).size(), 1u);
  EXPECT_EQ(BestMoves(lines)[0], "0000");
}

TEST(UciEngineTest, InfoLinesScoreANetAndAnAlphaBeta) {
  MoveAnalysis net;
  net.available = true;
  net.seconds = 2;
  net.nodes = 1000;
  net.value = 0;
  net.draw = 0.2;
  net.top.push_back({});
  net.pv = {ParseMove("b1d3", Position::Start())};
  EXPECT_EQ(UciInfo(net), "info depth 1 nodes 1000 nps 500 time 2000 score cp 0 wdl 400 200 400 pv b1d3");
  net.value = 1;
  net.draw = 0;
  const std::string sure = UciInfo(net);  // lc0's map: about 12,780 centipawns
  EXPECT_NE(sure.find("score cp 127"), std::string::npos) << sure;
  EXPECT_NE(sure.find("wdl 1000 0 0"), std::string::npos) << sure;
  MoveAnalysis ab;
  ab.available = true;
  ab.depth = 7;
  ab.score = ab::kWinScore - 3;  // a win in 3 plies: mate in 2
  EXPECT_NE(UciInfo(ab).find("depth 7 "), std::string::npos);
  EXPECT_NE(UciInfo(ab).find("score mate 2"), std::string::npos);
  ab.score = -(ab::kWinScore - 4);  // lost in 4 plies
  EXPECT_NE(UciInfo(ab).find("score mate -2"), std::string::npos);
  ab.score = 35;
  EXPECT_NE(UciInfo(ab).find("score cp 35"), std::string::npos);
  EXPECT_EQ(UciInfo(MoveAnalysis()), "");
}

}  // namespace
}  // namespace loa
