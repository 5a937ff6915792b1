// The exam: positions drawn from games, proven under both rules, written and
// read back, and the marks of an engine that cannot miss a short win.

#include "play/exam.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/random_play.h"
#include "mcts/uniform_evaluator.h"
#include "tests/solve/solver_cases.h"

namespace loa {
namespace {

TEST(ExamTest, CandidatesAreDistinctSpacedAndUnfinished) {
  const std::vector<Game> games = RandomGames(20, 3, Rules::FromString("size=6"), 10, 60, false);
  const std::vector<Position> picked = ExamCandidates(games, 5, 1000, 1);
  ASSERT_FALSE(picked.empty());
  int plies = 0;
  for (const Game& g : games) plies += g.ply();
  EXPECT_LE(int(picked.size()), plies / 5 + int(games.size()));
  std::set<uint64_t> hashes;
  for (const Position& p : picked) {
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
  EXPECT_EQ(set[2].draw_rule, solve::Outcome::kLoss);
  const std::vector<ExamPosition> back = ParseExamSet(FormatExamSet(set), "positions.txt");
  ASSERT_EQ(back.size(), set.size());
  for (size_t i = 0; i < set.size(); ++i) {
    EXPECT_EQ(back[i].position, set[i].position);
    EXPECT_EQ(back[i].draw_rule, set[i].draw_rule);
    EXPECT_EQ(back[i].mover_rule, set[i].mover_rule);
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
  const ExamMarks m = TakeExam(set, net, *engine, solver, opts);
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
}

}  // namespace
}  // namespace loa
