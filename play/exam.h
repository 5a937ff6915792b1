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
// each option of the simultaneous rule (kUnknown where it did not finish).
struct ExamPosition {
  Position position;
  solve::Outcome draw_rule = solve::Outcome::kUnknown;
  solve::Outcome mover_rule = solve::Outcome::kUnknown;
  solve::Outcome Under(Simultaneous s) const { return s == Simultaneous::kDraw ? draw_rule : mover_rule; }
};

// Returns up to `count` distinct positions of the games (taken in an order
// drawn by seed), `spacing` plies apart in each game (from a ply drawn in
// [1, spacing]), none of them over.
std::vector<Position> ExamCandidates(const std::vector<Game>& games, int spacing, int count, uint64_t seed);

// Returns pos solved under both options of the simultaneous rule, the rest
// of the rules as given (no move cap: the exam's truth is the game's).
ExamPosition SolveUnderBothRules(solve::Solver& solver, const Position& pos, Rules rules,
                                 const solve::SolveLimits& limits);

// The exam set as text, a position a line: "FEN|DRAW-RULE|MOVER-RULE", the
// results by solve::OutcomeName; ParseExamSet reads it back, throwing
// ParseError naming `source` and the line.
std::string FormatExamSet(const std::vector<ExamPosition>& set);
std::vector<ExamPosition> ParseExamSet(const std::string& text, const std::string& source);

struct ExamMarks {
  int value_asked = 0, value_right = 0;           // proven wins and losses: the value's sign
  int moves_asked = 0, moves_kept = 0;            // proven wins: the engine's move keeps the win
  int moves_unknown = 0;                          // ... or the solver did not settle the move
  int games = 0, games_won = 0, games_drawn = 0;  // from proven wins, against the solver defending
  std::vector<std::string> misjudged;             // "FEN|PROVEN|VALUE" where the value's sign is wrong
  double Share(int part, int whole) const { return whole ? double(part) / whole : 0.0; }
};

struct ExamOptions {
  Rules rules;                // the rules the net was trained under
  solve::SolveLimits limits;  // each solve of a move or a defence
  int games = 100;            // games from proven wins (the first this many)
  int max_game_plies = 100;   // a game past this many plies counts as not won
};

// Marks the net (its evaluator, for the value) and its engine (a player on
// it) on the set's positions proven under opts.rules.
ExamMarks TakeExam(const std::vector<ExamPosition>& set, Evaluator& net, Player& engine, solve::Solver& solver,
                   const ExamOptions& opts);

}  // namespace loa
