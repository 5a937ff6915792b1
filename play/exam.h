#pragma once
// The exam of a net against ground truth (docs/TRAINING.md, "The 6x6
// exam"): positions from a run's games proven won, lost or drawn by the
// solver under both options of the simultaneous rule, and a checkpoint's
// marks on them: its value's sign, its engine's move in a proven win, and
// its engine's score from proven wins against the solver defending.

#include <string>
#include <vector>

#include "core/game.h"
#include "mcts/evaluator.h"
#include "play/player.h"
#include "solve/dfpn.h"

namespace loa {

// A position and what the solver proved of it (for its side to move) under
// each option of the simultaneous rule (kUnknown where it did not finish),
// with the plies of each proof, and where it came from: the record of its
// game and how that game ended for the side to move here (kUnknown where
// the set does not say: a set written before sources were kept).
struct ExamPosition {
  Position position;
  solve::Outcome draw_rule = solve::Outcome::kUnknown;
  solve::Outcome mover_rule = solve::Outcome::kUnknown;
  int draw_plies = 0, mover_plies = 0;  // SolveResult::proof_plies of a win or a loss
  std::string game;                     // the game's record name (games/NAME.txt), or empty
  solve::Outcome game_result = solve::Outcome::kUnknown;
  solve::Outcome Under(Simultaneous s) const { return s == Simultaneous::kDraw ? draw_rule : mover_rule; }
  int PliesUnder(Simultaneous s) const { return s == Simultaneous::kDraw ? draw_plies : mover_plies; }
};

// A position drawn for the exam and the index of the game it came from.
struct ExamCandidate {
  Position position;
  size_t game = 0;
};

// Returns up to `count` distinct positions of the games (taken in an order
// drawn by seed), `spacing` plies apart in each game (from a ply drawn in
// [1, spacing]), none of them over.
std::vector<ExamCandidate> ExamCandidates(const std::vector<Game>& games, int spacing, int count, uint64_t seed);

// Returns pos solved under both options of the simultaneous rule, the rest
// of the rules as given (no move cap: the exam's truth is the game's).
ExamPosition SolveUnderBothRules(solve::Solver& solver, const Position& pos, Rules rules,
                                 const solve::SolveLimits& limits);

// How a game that ended with `result` ended for `side`: won, lost or drawn
// (unknown for a game not over).
solve::Outcome OutcomeFor(Result result, Color side);

// The exam set as text, a position a line:
// "FEN|DRAW-RULE|MOVER-RULE|DRAW-PLIES|MOVER-PLIES|GAME|GAME-RESULT", the
// results by solve::OutcomeName (the game's for the side to move); a line of
// the first three fields alone (a set of before) still reads. ParseExamSet
// reads it back, throwing ParseError naming `source` and the line.
std::string FormatExamSet(const std::vector<ExamPosition>& set);
std::vector<ExamPosition> ParseExamSet(const std::string& text, const std::string& source);

struct ExamMarks {
  int value_asked = 0, value_right = 0;           // proven wins and losses: the value's sign
  int moves_asked = 0, moves_kept = 0;            // proven wins: the engine's move keeps the win
  int moves_unknown = 0;                          // ... or the solver did not settle the move
  int games = 0, games_won = 0, games_drawn = 0;  // from proven wins, against the solver defending
  std::vector<std::string> misjudged;             // "FEN|PROVEN|VALUE" where the value's sign is wrong
  // For each position of the set: 1 where the value has the proven sign, 0
  // where it has not, -1 where it was not asked (not a proven win or loss).
  std::vector<int8_t> value_marks;
  double Share(int part, int whole) const { return whole ? double(part) / whole : 0.0; }
};

struct ExamOptions {
  Rules rules;                // the rules the net was trained under
  solve::SolveLimits limits;  // each solve of a move or a defence
  int games = 100;            // games from proven wins (the first this many)
  int max_game_plies = 100;   // a game past this many plies counts as not won
};

// Marks the net (its evaluator, for the value) and its engine (a player on
// it) on the set's positions proven under opts.rules. An engine of null
// marks the value alone (the move and game marks stay 0).
ExamMarks TakeExam(const std::vector<ExamPosition>& set, Evaluator& net, Player* engine, solve::Solver& solver,
                   const ExamOptions& opts);

// The exam's positions against the games they came from (docs/TRAINING.md,
// D1): of the proven wins and losses whose game's end is known, by the
// proof's length, how many games ended otherwise than the proof (the value
// target self-play gave), how many the net misjudges, and how the two
// overlap. marks.value_marks is the net's.
struct SourceRow {
  std::string plies;  // "1", "2-5", ...
  int positions = 0, game_against = 0, net_wrong = 0, both = 0;
};
std::vector<SourceRow> CompareWithSources(const std::vector<ExamPosition>& set, const ExamMarks& marks,
                                          Simultaneous rule);

}  // namespace loa
