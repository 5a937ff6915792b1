// The end of the game (docs/RULES.md rules 6-10) and the Game's history.

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/game.h"
#include "core/notation.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

using testing::P;

void PlayAll(Game& game, std::initializer_list<const char*> moves) {
  for (const char* text : moves) game.Play(ParseMove(text, game.position()));
}

TEST(Game, MoverWinsByUniting) {
  // Black's c2-b2 joins a1; white stays apart.
  Game game(Rules(), P("7w/8/8/8/8/8/2b5/b6w b"));
  EXPECT_FALSE(game.over());
  PlayAll(game, {"c2-b2"});
  EXPECT_EQ(game.result(), Result::kBlackWins);
  EXPECT_EQ(game.reason(), Reason::kUnited);
  MoveList moves;
  game.LegalMoves(moves);
  EXPECT_TRUE(moves.empty());
}

TEST(Game, CaptureThatUnitesTheOpponentLosesWhenTheMoverIsApart) {
  Game game(Rules(), P("5b1w/8/8/8/8/2b5/w7/w7 b"));
  PlayAll(game, {"f8xh8"});
  EXPECT_EQ(game.result(), Result::kWhiteWins);
  EXPECT_EQ(game.reason(), Reason::kUnited);
}

TEST(Game, BothUnitedFollowsTheOption) {
  const Position pos = P("7b/6w1/8/6b1/8/8/4w3/4w3 b");
  Game draw(Rules(), pos);
  PlayAll(draw, {"g5xg7"});
  EXPECT_EQ(draw.result(), Result::kDraw);
  EXPECT_EQ(draw.reason(), Reason::kBothUnited);
  Rules mover_rules;
  mover_rules.simultaneous = Simultaneous::kMover;
  Game mover(mover_rules, pos);
  PlayAll(mover, {"g5xg7"});
  EXPECT_EQ(mover.result(), Result::kBlackWins);
  EXPECT_EQ(mover.reason(), Reason::kBothUnited);
}

TEST(Game, AFinishedPositionIsOverFromTheStart) {
  // Black to move, but White (who moved last) is united: White has won.
  const Game game(Rules(), P("8/8/8/8/8/8/ww6/b6b b"));
  EXPECT_EQ(game.result(), Result::kWhiteWins);
}

TEST(Game, PassIsPlayedWhenNoMoveExists) {
  Game game(Rules(), P("6wb/6ww/8/8/8/8/ww6/bw6 b"));
  MoveList moves;
  game.LegalMoves(moves);
  ASSERT_EQ(moves.size(), 1);
  ASSERT_TRUE(moves[0].is_pass());
  game.Play(moves[0]);
  EXPECT_EQ(game.position().side_to_move(), kWhite);
  EXPECT_FALSE(game.over());
  EXPECT_EQ(game.ply(), 1);
}

TEST(Game, ThirdOccurrenceDrawsAndTheStartCounts) {
  Game game;
  const auto cycle = {"b1-b3", "a2-c2", "b3-b1", "c2-a2"};
  PlayAll(game, cycle);
  EXPECT_EQ(game.Occurrences(game.position()), 2);
  EXPECT_EQ(game.position(), Position::Start());
  PlayAll(game, {"b1-b3", "a2-c2", "b3-b1"});
  EXPECT_FALSE(game.over());
  PlayAll(game, {"c2-a2"});
  EXPECT_EQ(game.ply(), 8);
  EXPECT_EQ(game.result(), Result::kDraw);
  EXPECT_EQ(game.reason(), Reason::kRepetition);
}

TEST(Game, MoveCapDrawsAndIsMarked) {
  Rules rules;
  rules.max_plies = 3;
  Game game(rules);
  PlayAll(game, {"b1-b3", "a2-c2"});
  EXPECT_FALSE(game.over());
  PlayAll(game, {"d1-d3"});
  EXPECT_EQ(game.result(), Result::kDraw);
  EXPECT_EQ(game.reason(), Reason::kCap);
}

TEST(Game, UndoRestoresPositionCountsAndResult) {
  Game game;
  PlayAll(game, {"b1-b3", "a2-c2", "b3-b1", "c2-a2", "b1-b3", "a2-c2", "b3-b1", "c2-a2"});
  ASSERT_TRUE(game.over());
  EXPECT_TRUE(game.Undo());
  EXPECT_FALSE(game.over());
  EXPECT_EQ(game.Occurrences(Position::Start()), 2);
  while (game.Undo()) {
  }
  EXPECT_EQ(game.ply(), 0);
  EXPECT_EQ(game.position(), Position::Start());
  EXPECT_EQ(game.Occurrences(Position::Start()), 1);
  EXPECT_FALSE(game.Undo());
}

TEST(Rules, ParseAndFormat) {
  Rules rules = Rules::FromString("simultaneous=mover start=scrambled max_plies=200");
  EXPECT_EQ(rules.simultaneous, Simultaneous::kMover);
  EXPECT_EQ(rules.start, StartKind::kScrambled);
  EXPECT_EQ(rules.max_plies, 200);
  EXPECT_EQ(Rules::FromString(rules.ToString()), rules);
  EXPECT_THROW(Rules::FromString("simultaneous=both"), ParseError);
  EXPECT_THROW(Rules::FromString("max_plies=-1"), ParseError);
  EXPECT_THROW(Rules::FromString("colour=red"), ParseError);
}

}  // namespace
}  // namespace loa
