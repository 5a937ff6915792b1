// The exam: positions drawn from games, proven under both rules, written and
// read back, and the marks of an engine that cannot miss a short win.

#include "play/exam.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/random_play.h"
#include "core/testing.h"
#include "mcts/uniform_evaluator.h"
#include "solve/testing.h"

namespace loa {
namespace {

TEST(ExamTest, CandidatesAreDistinctSpacedAndUnfinished) {
  const std::vector<Game> games = testing::RandomGames(20, 3, Rules::FromString("size=6"), 10, 60, false);
  const std::vector<ExamCandidate> picked = ExamCandidates(games, 5, 1000, 1);
  ASSERT_FALSE(picked.empty());
  int plies = 0;
  for (const Game& g : games) plies += g.ply();
  EXPECT_LE(int(picked.size()), plies / 5 + int(games.size()));
  std::set<uint64_t> hashes;
  for (const ExamCandidate& c : picked) {
    const Position& p = c.position;
    // It names the game it came from: one of that game's positions.
    ASSERT_LT(c.game, games.size());
    EXPECT_GT(games[c.game].Occurrences(p), 0);
    EXPECT_EQ(p.size(), 6);
    EXPECT_FALSE(p.IsUnited(kBlack) || p.IsUnited(kWhite));
    EXPECT_TRUE(hashes.insert(p.hash()).second);
  }
  EXPECT_EQ(ExamCandidates(games, 5, 3, 1).size(), 3u);
}

TEST(ExamTest, TheSetIsWrittenAndReadBack) {
  solve::Solver solver(16);
  std::vector<ExamPosition> set;
  for (int i : {0, 1, 6})
    set.push_back(SolveUnderBothRules(solver, Position::FromString(testing::kSolverCases[i].position), Rules(),
                                      solve::SolveLimits()));
  EXPECT_EQ(set[0].draw_rule, solve::Outcome::kWin);
  EXPECT_EQ(set[0].draw_plies, testing::kSolverCases[0].plies);
  EXPECT_EQ(set[2].draw_rule, solve::Outcome::kLoss);
  EXPECT_GT(set[2].draw_plies, 0);
  set[1].game = "main-w0_000003_g7";
  set[1].game_result = solve::Outcome::kLoss;
  const std::vector<ExamPosition> back = ParseExamSet(FormatExamSet(set), "positions.txt");
  ASSERT_EQ(back.size(), set.size());
  for (size_t i = 0; i < set.size(); ++i) {
    EXPECT_EQ(back[i].position, set[i].position);
    EXPECT_EQ(back[i].draw_rule, set[i].draw_rule);
    EXPECT_EQ(back[i].mover_rule, set[i].mover_rule);
    EXPECT_EQ(back[i].draw_plies, set[i].draw_plies);
    EXPECT_EQ(back[i].mover_plies, set[i].mover_plies);
    EXPECT_EQ(back[i].game, set[i].game);
    EXPECT_EQ(back[i].game_result, set[i].game_result);
  }
  // A set of before, three fields a line, still reads: no source.
  const std::vector<ExamPosition> old = ParseExamSet("7w/8/7w/8/8/b7/8/b7 b|won|lost\n", "positions.txt");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].mover_rule, solve::Outcome::kLoss);
  EXPECT_EQ(old[0].game_result, solve::Outcome::kUnknown);
  EXPECT_TRUE(old[0].game.empty());
  try {
    ParseExamSet("7w/8/7w/8/8/b7/8/b7 b|won|won|3|x|g|won\n", "positions.txt");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "positions.txt:1: 'x' is not a count of plies");
  }
  try {
    ParseExamSet("7w/8/7w/8/8/b7/8/b7 b|won|won\n7w/8/7w/8/8/b7/8/b7 b|won|maybe\n", "positions.txt");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "positions.txt:2: 'maybe' is not won, lost, drawn or unknown");
  }
}

TEST(ExamTest, AnEngineThatSeesTheShortWinsKeepsThemAll) {
  solve::Solver solver(16);
  std::vector<ExamPosition> set;
  for (const testing::SolverCase& c : testing::kSolverCases)
    if (c.plies <= 3 || !c.win)
      set.push_back(SolveUnderBothRules(solver, Position::FromString(c.position), Rules(), solve::SolveLimits()));
  UniformEvaluator net;
  const std::unique_ptr<Player> engine = MakePlayer("ab:depth=4");
  ExamOptions opts;
  opts.games = 2;
  const ExamMarks m = TakeExam(set, net, engine.get(), solver, opts);
  int wins = 0, losses = 0;
  for (const ExamPosition& e : set) {
    wins += e.draw_rule == solve::Outcome::kWin;
    losses += e.draw_rule == solve::Outcome::kLoss;
  }
  EXPECT_EQ(wins, 4);
  EXPECT_EQ(m.value_asked, wins + losses);
  EXPECT_EQ(m.value_right, 0);                           // the uniform evaluator's value is 0: no sign
  ASSERT_EQ(m.misjudged.size(), size_t(m.value_asked));  // each named, with its proof and value
  EXPECT_EQ(m.misjudged[0].substr(m.misjudged[0].find('|')),
            std::string("|") + solve::OutcomeName(set[0].draw_rule) + "|0.000000");
  EXPECT_EQ(m.moves_asked, wins);
  EXPECT_EQ(m.moves_kept, wins);
  EXPECT_EQ(m.games, 2);
  EXPECT_EQ(m.games_won, 2);
  // The value alone: no engine, no moves or games.
  const ExamMarks value = TakeExam(set, net, nullptr, solver, opts);
  EXPECT_EQ(value.value_asked, m.value_asked);
  EXPECT_EQ(value.moves_asked, 0);
  EXPECT_EQ(value.games, 0);
}

// D1: each proven position against its game's end, by the proof's length.
TEST(ExamTest, SourcesAreComparedByTheProofsLength) {
  auto at = [](solve::Outcome proof, int plies, solve::Outcome game) {
    ExamPosition e;
    e.draw_rule = proof;
    e.draw_plies = plies;
    e.game = "g";
    e.game_result = game;
    return e;
  };
  using solve::Outcome;
  const std::vector<ExamPosition> set = {
      at(Outcome::kWin, 1, Outcome::kWin),       // agreed, right
      at(Outcome::kWin, 3, Outcome::kLoss),      // against, wrong
      at(Outcome::kLoss, 4, Outcome::kDraw),     // against (a draw is not the proof), right
      at(Outcome::kLoss, 8, Outcome::kLoss),     // agreed, wrong
      at(Outcome::kWin, 20, Outcome::kUnknown),  // no known end: not counted
      at(Outcome::kDraw, 5, Outcome::kWin),      // not asked
  };
  ExamMarks marks;
  marks.value_marks = {1, 0, 1, 0, 0, -1};
  const std::vector<SourceRow> rows = CompareWithSources(set, marks, Simultaneous::kDraw);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].plies, "1");
  EXPECT_EQ(rows[0].positions, 1);
  EXPECT_EQ(rows[0].game_against, 0);
  EXPECT_EQ(rows[1].positions, 2);
  EXPECT_EQ(rows[1].game_against, 2);
  EXPECT_EQ(rows[1].net_wrong, 1);
  EXPECT_EQ(rows[1].both, 1);
  EXPECT_EQ(rows[2].positions, 1);
  EXPECT_EQ(rows[2].net_wrong, 1);
  EXPECT_EQ(rows[2].both, 0);
  EXPECT_EQ(rows[4].positions, 0);
  const SourceRow& all = rows.back();
  EXPECT_EQ(all.positions, 4);
  EXPECT_EQ(all.game_against, 2);
  EXPECT_EQ(all.net_wrong, 2);
  EXPECT_EQ(all.both, 1);
}

}  // namespace
}  // namespace loa
