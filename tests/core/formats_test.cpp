// Other programs' formats (docs/FORMATS.md): every position of the expert
// games written in each position format and read back, OpenSpiel's action
// ids both ways, SGF GM[9] read and written.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/formats.h"
#include "core/notation.h"
#include "core/record.h"
#include "tests/core/expert_games.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

using testing::ExpertGames;
using testing::ReplayExpertGame;

constexpr PositionFormat kAll[] = {PositionFormat::kLoaz, PositionFormat::kCutechess, PositionFormat::kPlayStrategy,
                                   PositionFormat::kOpenSpiel};

// The message of the ParseError that f throws, or "".
template <typename F>
std::string ErrorOf(F&& f) {
  return testing::ErrorOf<ParseError>(f);
}

// Every position of every expert game.
std::vector<Position> ExpertPositions() {
  std::vector<Position> out;
  for (const auto& e : ExpertGames()) {
    Game game = ReplayExpertGame(e);
    for (;;) {
      out.push_back(game.position());
      if (!game.Undo()) break;
    }
  }
  return out;
}

TEST(Formats, TheStartAsEachProgramWritesIt) {
  const Position start = Position::Start();
  EXPECT_EQ(FormatPosition(start, PositionFormat::kLoaz), "1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b");
  EXPECT_EQ(FormatPosition(start, PositionFormat::kCutechess), "1pppppp1/P6P/P6P/P6P/P6P/P6P/P6P/1pppppp1 b - - 0 1");
  // PlayStrategy's own initial FEN: its White ('L', 'w') is the side that moves first.
  EXPECT_EQ(FormatPosition(start, PositionFormat::kPlayStrategy),
            "1LLLLLL1/l6l/l6l/l6l/l6l/l6l/l6l/1LLLLLL1 w - - 0 1");
  // OpenSpiel's ToString of its initial state.
  EXPECT_EQ(FormatPosition(start, PositionFormat::kOpenSpiel),
            "8.xxxxxx.\n7o......o\n6o......o\n5o......o\n4o......o\n3o......o\n2o......o\n1.xxxxxx.\n abcdefgh\n\n\n"
            "Current player: x");
}

TEST(Formats, EveryExpertPositionRoundTripsInEveryFormat) {
  const std::vector<Position> positions = ExpertPositions();
  ASSERT_GT(positions.size(), 500u);
  for (const Position& pos : positions) {
    for (PositionFormat f : kAll) {
      const std::string text = FormatPosition(pos, f);
      EXPECT_EQ(DetectPositionFormat(text), f) << text;
      EXPECT_EQ(ReadPosition(text), pos) << PositionFormatName(f) << ": " << text;
    }
  }
}

TEST(Formats, EverySizeRoundTrips) {
  for (int size : {6, 7}) {
    const Position pos = Position::Start(StartKind::kScrambled, size);
    for (PositionFormat f : kAll) EXPECT_EQ(ReadPosition(FormatPosition(pos, f)), pos) << size;
  }
}

TEST(Formats, BadTextIsNamed) {
  EXPECT_NE(ErrorOf([] { ReadPosition("1pLLLLL1/l6l/l6l/l6l/l6l/l6l/l6l/1LLLLLL1 w"); }).find("mix the letters"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              ReadPosition("1LLLLLL1/l6l/l6l/l6l/l6l/l6l/l6l/1LLLLLL1 x - - 0 1");
            }).find("playstrategy FEN '1LLLLLL1"),
            std::string::npos);
  const std::string terminal =
      "8.xxxxxx.\n7o......o\n6o......o\n5o......o\n4o......o\n3o......o\n2o......o\n"
      "1.xxxxxx.\n abcdefgh\n\n\nCurrent player: none (terminal)";
  EXPECT_NE(ErrorOf([&] { ReadPosition(terminal); }).find("terminal state has no side"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ParsePositionFormat("fen"); }).find("known are loaz, cutechess"), std::string::npos);
}

TEST(Formats, OpenSpielActionIdsBothWays) {
  // OpenSpiel's own numbering, (((r * 8 + c) * 8 + r') * 8 + c') * 2 + capture.
  const Position start = Position::Start();
  const Move b1d3 = ParseMove("b1-d3", start);
  EXPECT_EQ(OpenSpielAction(b1d3), (((0 * 8 + 1) * 8 + 2) * 8 + 3) * 2 + 0);
  EXPECT_EQ(ParseMove("166", start), b1d3);
  int moves = 0, captures = 0;
  for (const auto& e : ExpertGames()) {
    Game game = ReplayExpertGame(e);
    while (game.Undo()) {
      MoveList list;
      game.LegalMoves(list);
      for (Move m : list) {
        if (m.is_pass()) continue;
        EXPECT_EQ(ParseMove(std::to_string(OpenSpielAction(m)), game.position()), m);
        ++moves;
        captures += m.is_capture();
      }
    }
  }
  EXPECT_GT(moves, 10000);
  EXPECT_GT(captures, 100);
  // The capture bit must agree with the board; ids past 8191 are none.
  EXPECT_NE(ErrorOf([&] { ParseMove("167", start); }).find("OpenSpiel's action id 167"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseMove("8192", start); }).find("not an OpenSpiel action id"), std::string::npos);
}

TEST(Formats, MovesWithTrailingMarksRead) {
  const Position start = Position::Start();
  EXPECT_EQ(ParseMove("b1-d3+", start), ParseMove("b1-d3", start));
  EXPECT_EQ(ParseMove("B1-D3!?", start), ParseMove("b1-d3", start));
}

TEST(Sgf, EveryExpertGameWrittenAndReadBack) {
  int games = 0;
  for (const auto& e : ExpertGames()) {
    const Game game = ReplayExpertGame(e);
    const std::string sgf = FormatSgf(game, {{"Black", "Winands"}, {"White", "Mark]Two"}});
    const Record record = ParseRecord(sgf, "game.sgf");
    EXPECT_EQ(TagValue(record.tags, "White"), "Mark]Two");
    const Game back = ReplayRecord(record, record.rules, "game.sgf");
    EXPECT_EQ(back.moves(), game.moves()) << sgf;
    EXPECT_EQ(back.result(), game.result());
    if (game.over()) EXPECT_EQ(TagValue(record.tags, "Result"), ResultName(game.result()));
    ++games;
  }
  EXPECT_EQ(games, 16);
}

TEST(Sgf, ReadsDyersRecords) {
  // Case-insensitive moves, ':' captures, marks, a variation off the main
  // line, comments with escaped brackets, a resignation.
  const std::string sgf =
      "(;GM[9]FF[4]SZ[8]PB[Dyer]PW[Guest]C[a \\] comment]RE[B+Resign]\n"
      ";B[B1-D3];W[h2-f4!](;B[c1-c3];W[resign])(;B[g1-e3]))";
  const Record record = ParseRecord(sgf, "dyer.sgf");
  EXPECT_EQ(record.moves, (std::vector<std::string>{"B1-D3", "h2-f4!", "c1-c3"}));
  EXPECT_EQ(record.result_token, "black");  // white resigned
  EXPECT_EQ(TagValue(record.tags, "Black"), "Dyer");
  EXPECT_EQ(ReplayRecord(record, record.rules, "dyer.sgf").ply(), 3);
  // A setup: the pieces, the side to move, a board of 6.
  const Record setup = ParseRecord("(;GM[9]SZ[6]AB[a1][c3]AW[f6][e6]PL[W])", "setup.sgf");
  EXPECT_EQ(setup.start, Position::FromString("4ww/6/6/2b3/6/b5 w"));
  EXPECT_EQ(setup.rules.size, 6);
  // Another game, a piece off the board, an unclosed value: one line naming it.
  EXPECT_NE(ErrorOf([] { ParseRecord("(;GM[1];B[dd])", "go.sgf"); }).find("go.sgf: SGF GM[1] is not Lines of Action"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseRecord("(;GM[9]SZ[6]AB[h8][a1]AW[b2])", "off.sgf"); }).find("h8, off the 6x6 board"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseRecord("(;GM[9];B[b1-d3", "cut.sgf"); }).find("never closed"), std::string::npos);
}

TEST(Sgf, RulesAndSetupRoundTrip) {
  Rules rules = Rules::FromString("openspiel size=7");
  Game game(rules, Position::Start(StartKind::kScrambled, 7));
  MoveList moves;
  game.LegalMoves(moves);
  game.Play(moves[0]);
  const Record record = ParseRecord(FormatSgf(game), "scrambled.sgf");
  EXPECT_EQ(record.rules, rules);
  EXPECT_EQ(record.start, game.start());
  EXPECT_EQ(ReplayRecord(record, record.rules, "scrambled.sgf").moves(), game.moves());
}

}  // namespace
}  // namespace loa
