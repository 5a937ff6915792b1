#include "play/exam.h"

#include <sstream>
#include <unordered_set>

#include "core/error.h"
#include "core/random.h"

namespace loa {

std::vector<Position> ExamCandidates(const std::vector<Game>& games, int spacing, int count, uint64_t seed) {
  Rng rng(seed);
  std::vector<Position> out;
  std::unordered_set<uint64_t> seen;
  // The games in an order drawn by seed, so that a set smaller than all
  // they hold comes from the whole run, not its first games.
  std::vector<size_t> order(games.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[size_t(rng.Below(int(i)))]);
  for (size_t index : order) {
    const Game& game = games[index];
    Game replay(game.rules(), game.start());
    int next = 1 + rng.Below(spacing);
    for (Move m : game.moves()) {
      if (int(out.size()) >= count) return out;
      replay.Play(m);
      if (replay.ply() < next || replay.over()) continue;
      next += spacing;
      if (seen.insert(replay.position().hash()).second) out.push_back(replay.position());
    }
  }
  return out;
}

ExamPosition SolveUnderBothRules(solve::Solver& solver, const Position& pos, Rules rules,
                                 const solve::SolveLimits& limits) {
  ExamPosition e;
  e.position = pos;
  rules.max_plies = 0;
  for (Simultaneous s : {Simultaneous::kDraw, Simultaneous::kMover}) {
    rules.simultaneous = s;
    // The two rules' numbers differ where a move unites both sides: a table each.
    solver.Clear();
    const solve::Outcome o = solver.Solve(Game(rules, pos), limits).outcome;
    (s == Simultaneous::kDraw ? e.draw_rule : e.mover_rule) = o;
  }
  return e;
}

namespace {

solve::Outcome OutcomeOf(const std::string& name) {
  for (solve::Outcome o :
       {solve::Outcome::kWin, solve::Outcome::kLoss, solve::Outcome::kDraw, solve::Outcome::kUnknown})
    if (name == solve::OutcomeName(o)) return o;
  throw ParseError("'" + Excerpt(name) + "' is not won, lost, drawn or unknown");
}

}  // namespace

std::string FormatExamSet(const std::vector<ExamPosition>& set) {
  std::string text;
  for (const ExamPosition& e : set)
    text +=
        e.position.ToString() + "|" + solve::OutcomeName(e.draw_rule) + "|" + solve::OutcomeName(e.mover_rule) + "\n";
  return text;
}

std::vector<ExamPosition> ParseExamSet(const std::string& text, const std::string& source) {
  std::vector<ExamPosition> set;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    try {
      const size_t a = line.find('|'), b = a == std::string::npos ? a : line.find('|', a + 1);
      if (b == std::string::npos) throw ParseError("expected FEN|DRAW-RULE|MOVER-RULE");
      ExamPosition e;
      e.position = Position::FromString(line.substr(0, a));
      e.draw_rule = OutcomeOf(line.substr(a + 1, b - a - 1));
      e.mover_rule = OutcomeOf(line.substr(b + 1));
      set.push_back(e);
    } catch (const ParseError& err) {
      throw ParseError(source + ":" + std::to_string(number) + ": " + err.what());
    }
  }
  return set;
}

namespace {

// Returns what the solver says of the game's position for its side to move.
solve::Outcome Solved(solve::Solver& solver, const Game& game, const solve::SolveLimits& limits) {
  return solver.Solve(game, limits).outcome;
}

// Plays the engine from a proven win against the solver defending: the
// defender plays the move the solver finds (its longest defence of a loss,
// a move that keeps a draw or a win once the engine has let one go).
// Returns the game's result for the engine.
Result PlayAgainstTheSolver(const ExamPosition& e, Player& engine, solve::Solver& solver, const ExamOptions& opts) {
  Rules rules = opts.rules;
  rules.max_plies = 0;
  Game game(rules, e.position);
  const Color engine_side = e.position.side_to_move();
  engine.NewGame();
  while (!game.over() && game.ply() < opts.max_game_plies) {
    Move m;
    if (game.position().side_to_move() == engine_side) {
      m = engine.ChooseMove(game, Clock());
    } else {
      m = solver.Solve(game, opts.limits).best_move;
      if (m.is_null()) {  // the solver did not finish: its first legal move
        MoveList moves;
        game.LegalMoves(moves);
        m = moves[0];
      }
    }
    game.Play(m);
  }
  return game.over() ? game.result() : Result::kDraw;
}

}  // namespace

ExamMarks TakeExam(const std::vector<ExamPosition>& set, Evaluator& net, Player& engine, solve::Solver& solver,
                   const ExamOptions& opts) {
  solver.Clear();  // its table may hold the numbers of the other rule
  ExamMarks marks;
  Rules rules = opts.rules;
  rules.max_plies = 0;
  for (const ExamPosition& e : set) {
    const solve::Outcome truth = e.Under(rules.simultaneous);
    if (truth != solve::Outcome::kWin && truth != solve::Outcome::kLoss) continue;
    EvalOutput out;
    net.Evaluate(&e.position, 1, &out);
    ++marks.value_asked;
    const bool right = (truth == solve::Outcome::kWin) == (out.Value() > 0) && out.Value() != 0;
    marks.value_right += right;
    if (!right)
      marks.misjudged.push_back(e.position.ToString() + "|" + solve::OutcomeName(truth) + "|" +
                                std::to_string(out.Value()));
    if (truth != solve::Outcome::kWin) continue;
    // The engine's move in a proven win: is the position after it lost for the opponent?
    Game game(rules, e.position);
    engine.NewGame();
    game.Play(engine.ChooseMove(game, Clock()));
    ++marks.moves_asked;
    if (game.over()) {
      marks.moves_kept += game.result() == WinFor(e.position.side_to_move());
    } else {
      const solve::Outcome after = Solved(solver, game, opts.limits);
      marks.moves_kept += after == solve::Outcome::kLoss;
      marks.moves_unknown += after == solve::Outcome::kUnknown;
    }
    if (marks.games < opts.games) {
      const Result r = PlayAgainstTheSolver(e, engine, solver, opts);
      ++marks.games;
      marks.games_won += r == WinFor(e.position.side_to_move());
      marks.games_drawn += r == Result::kDraw;
    }
  }
  return marks;
}

}  // namespace loa
