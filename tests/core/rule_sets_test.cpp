// The other programs' rules as rule options (docs/RULES.md, "Other
// programs' rules"): a side without moves, the repetition count and what it
// compares, the plies without a capture; and every expert game replayed to
// the result each rule set gives, found here by a count of its own.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/notation.h"
#include "tests/core/expert_games.h"

namespace loa {
namespace {

using testing::ExpertGames;
using testing::ReplayExpertGame;

// Black on a1 and h8, each walled in by three white pieces: Black has no move.
const char kBlackStuck[] = "6wb/6ww/8/8/8/8/ww6/bw6 b";

TEST(RuleSets, NamesExpandToTheirOptions) {
  EXPECT_EQ(Rules().ToString(), "simultaneous=draw start=standard size=8 max_plies=0");
  EXPECT_EQ(Rules::FromString("olympiad"), Rules());
  const Rules openspiel = Rules::FromString("openspiel");
  EXPECT_EQ(openspiel.simultaneous, Simultaneous::kMover);
  EXPECT_EQ(openspiel.no_moves, NoMoves::kLoss);
  EXPECT_EQ(openspiel.repetition, 2);
  EXPECT_EQ(openspiel.repetition_of, RepetitionOf::kBoard);
  EXPECT_EQ(openspiel.max_plies, 1000);
  EXPECT_EQ(openspiel.ToString(),
            "simultaneous=mover start=standard size=8 max_plies=1000 no_moves=loss repetition=2 repetition_of=board");
  const Rules playstrategy = Rules::FromString("playstrategy, size=6");
  EXPECT_EQ(playstrategy.no_moves, NoMoves::kDraw);
  EXPECT_EQ(playstrategy.repetition, 5);
  EXPECT_EQ(playstrategy.no_capture_plies, 100);
  EXPECT_EQ(playstrategy.size, 6);
  EXPECT_EQ(Rules::FromString("cutechess").no_moves, NoMoves::kLoss);
  for (const char* set : {"olympiad", "openspiel", "cutechess", "playstrategy"}) {
    const Rules rules = Rules::FromString(set);
    EXPECT_EQ(Rules::FromString(rules.ToString()), rules) << set;
  }
  EXPECT_FALSE(Rules::FromString("cutechess") == Rules());
  try {
    Rules::FromString("lichess");
    ADD_FAILURE() << "an unknown rule set was read";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("rule set 'lichess': known are olympiad, openspiel"), std::string::npos);
  }
}

TEST(RuleSets, ASideWithoutMovesPassesLosesOrDraws) {
  const Position stuck = Position::FromString(kBlackStuck);
  Game olympiad(Rules(), stuck);
  MoveList moves;
  olympiad.LegalMoves(moves);
  ASSERT_EQ(moves.size(), 1);
  EXPECT_TRUE(moves[0].is_pass());
  const Game loses(Rules::FromString("no_moves=loss"), stuck);
  EXPECT_EQ(loses.result(), Result::kWhiteWins);
  EXPECT_EQ(loses.reason(), Reason::kNoMoves);
  EXPECT_STREQ(ReasonName(loses.reason()), "no-moves");
  const Game draws(Rules::FromString("no_moves=draw"), stuck);
  EXPECT_EQ(draws.result(), Result::kDraw);
  EXPECT_EQ(draws.reason(), Reason::kNoMoves);
  // Reached by a move: White's move that leaves Black walled in ends the game.
  Game reached(Rules::FromString("cutechess"), Position::FromString("6wb/6ww/8/8/1w6/8/w7/bw6 w"));
  reached.Play(ParseMove("b4-b2", reached.position()));
  EXPECT_EQ(reached.position(), stuck);
  EXPECT_EQ(reached.result(), Result::kWhiteWins);
}

TEST(RuleSets, ARepetitionCountsAsTheRulesSay) {
  // Black passes: the same board with White to move. OpenSpiel compares the
  // board alone, so its second occurrence draws; the Olympiad's does not.
  const Position stuck = Position::FromString(kBlackStuck);
  Game position(Rules::FromString("repetition=2"), stuck);
  position.Play(Move::Pass());
  EXPECT_FALSE(position.over());
  Game board(Rules::FromString("repetition=2 repetition_of=board"), stuck);
  board.Play(Move::Pass());
  EXPECT_EQ(board.result(), Result::kDraw);
  EXPECT_EQ(board.reason(), Reason::kRepetition);
  EXPECT_EQ(board.Occurrences(stuck), 2);
}

// The ply at which the rules end a game by a repetition or by plies without a
// capture, counted over the game's positions without the Game's own counts
// (0: neither ends it).
int DrawnAt(const Game& game, const Rules& rules) {
  std::map<std::pair<uint64_t, uint64_t>, int> boards;
  std::map<uint64_t, int> positions;
  Game replay(rules, game.start());
  int quiet = 0;
  for (int ply = 0; ply <= game.ply(); ++ply) {
    const Position& pos = replay.position();
    const int seen = rules.repetition_of == RepetitionOf::kBoard ? ++boards[{pos.pieces(kBlack), pos.pieces(kWhite)}]
                                                                 : ++positions[pos.hash()];
    const bool united = pos.IsUnited(kBlack) || pos.IsUnited(kWhite);
    if (ply > 0 && !united && (seen >= rules.repetition || (rules.no_capture_plies && quiet >= rules.no_capture_plies)))
      return ply;
    if (ply == game.ply()) break;
    const Move m = game.moves()[ply];
    quiet = m.is_capture() ? 0 : quiet + 1;
    replay.Play(m);
  }
  return 0;
}

TEST(RuleSets, EveryExpertGameReplaysToTheResultOfEachRuleSet) {
  int changed = 0;
  for (const auto& e : ExpertGames()) {
    const Game olympiad = ReplayExpertGame(e);
    for (const char* set : {"olympiad", "openspiel", "cutechess", "playstrategy", "repetition=2 no_capture_plies=12"}) {
      const Rules rules = Rules::FromString(set);
      Game game(rules, olympiad.start());
      for (Move m : olympiad.moves()) {
        if (game.over()) break;
        game.Play(m);
      }
      const int drawn = DrawnAt(olympiad, rules);
      if (drawn) {
        EXPECT_EQ(game.ply(), drawn) << e.file << " " << set;
        EXPECT_EQ(game.result(), Result::kDraw) << e.file << " " << set;
        ++changed;
        continue;
      }
      EXPECT_EQ(game.ply(), olympiad.ply()) << e.file << " " << set;
      const bool both = olympiad.reason() == Reason::kBothUnited;
      EXPECT_EQ(game.result(), both && rules.simultaneous == Simultaneous::kMover
                                   ? WinFor(olympiad.position().side_to_move() == kBlack ? kWhite : kBlack)
                                   : olympiad.result())
          << e.file << " " << set;
    }
  }
  // The short no-capture limit ends some of the games early; the named sets
  // end every expert game as the Olympiad's rules do.
  EXPECT_GT(changed, 0);
}

}  // namespace
}  // namespace loa
