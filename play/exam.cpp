#include "play/exam.h"

#include <charconv>
#include <sstream>
#include <unordered_set>

#include "core/error.h"
#include "core/random.h"

namespace loa {

std::vector<ExamCandidate> ExamCandidates(const std::vector<Game>& games, int spacing, int count, uint64_t seed) {
  Rng rng(seed);
  std::vector<ExamCandidate> out;
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
      if (seen.insert(replay.position().hash()).second) out.push_back({replay.position(), index});
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
    const solve::SolveResult r = solver.Solve(Game(rules, pos), limits);
    (s == Simultaneous::kDraw ? e.draw_rule : e.mover_rule) = r.outcome;
    (s == Simultaneous::kDraw ? e.draw_plies : e.mover_plies) = r.proof_plies;
  }
  return e;
}

solve::Outcome OutcomeFor(Result result, Color side) {
  switch (result) {
    case Result::kDraw:
      return solve::Outcome::kDraw;
    case Result::kOngoing:
      return solve::Outcome::kUnknown;
    default:
      return result == WinFor(side) ? solve::Outcome::kWin : solve::Outcome::kLoss;
  }
}

namespace {

solve::Outcome OutcomeOf(const std::string& name) {
  for (solve::Outcome o :
       {solve::Outcome::kWin, solve::Outcome::kLoss, solve::Outcome::kDraw, solve::Outcome::kUnknown})
    if (name == solve::OutcomeName(o)) return o;
  throw ParseError("'" + Excerpt(name) + "' is not won, lost, drawn or unknown");
}

int PliesOf(const std::string& text) {
  int plies = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, plies);
  if (ec != std::errc() || ptr != end || plies < 0 || text.empty())
    throw ParseError("'" + Excerpt(text) + "' is not a count of plies");
  return plies;
}

}  // namespace

std::string FormatExamSet(const std::vector<ExamPosition>& set) {
  std::string text;
  for (const ExamPosition& e : set)
    text += e.position.ToString() + "|" + solve::OutcomeName(e.draw_rule) + "|" + solve::OutcomeName(e.mover_rule) +
            "|" + std::to_string(e.draw_plies) + "|" + std::to_string(e.mover_plies) + "|" + e.game + "|" +
            solve::OutcomeName(e.game_result) + "\n";
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
      std::vector<std::string> fields;
      for (size_t begin = 0;;) {
        const size_t end = line.find('|', begin);
        fields.push_back(line.substr(begin, end == std::string::npos ? end : end - begin));
        if (end == std::string::npos) break;
        begin = end + 1;
      }
      if (fields.size() != 3 && fields.size() != 7)
        throw ParseError("expected FEN|DRAW-RULE|MOVER-RULE[|DRAW-PLIES|MOVER-PLIES|GAME|GAME-RESULT]");
      ExamPosition e;
      e.position = Position::FromString(fields[0]);
      e.draw_rule = OutcomeOf(fields[1]);
      e.mover_rule = OutcomeOf(fields[2]);
      if (fields.size() == 7) {
        e.draw_plies = PliesOf(fields[3]);
        e.mover_plies = PliesOf(fields[4]);
        e.game = fields[5];
        e.game_result = OutcomeOf(fields[6]);
      }
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

ExamMarks TakeExam(const std::vector<ExamPosition>& set, Evaluator& net, Player* engine, solve::Solver& solver,
                   const ExamOptions& opts) {
  solver.Clear();  // its table may hold the numbers of the other rule
  ExamMarks marks;
  Rules rules = opts.rules;
  rules.max_plies = 0;
  marks.value_marks.assign(set.size(), -1);
  for (size_t i = 0; i < set.size(); ++i) {
    const ExamPosition& e = set[i];
    const solve::Outcome truth = e.Under(rules.simultaneous);
    if (truth != solve::Outcome::kWin && truth != solve::Outcome::kLoss) continue;
    EvalOutput out;
    net.Evaluate(&e.position, 1, &out);
    ++marks.value_asked;
    const bool right = (truth == solve::Outcome::kWin) == (out.Value() > 0) && out.Value() != 0;
    marks.value_right += right;
    marks.value_marks[i] = right;
    if (!right)
      marks.misjudged.push_back(e.position.ToString() + "|" + solve::OutcomeName(truth) + "|" +
                                std::to_string(out.Value()));
    if (truth != solve::Outcome::kWin || !engine) continue;
    // The engine's move in a proven win: is the position after it lost for the opponent?
    Game game(rules, e.position);
    engine->NewGame();
    game.Play(engine->ChooseMove(game, Clock()));
    ++marks.moves_asked;
    if (game.over()) {
      marks.moves_kept += game.result() == WinFor(e.position.side_to_move());
    } else {
      const solve::Outcome after = Solved(solver, game, opts.limits);
      marks.moves_kept += after == solve::Outcome::kLoss;
      marks.moves_unknown += after == solve::Outcome::kUnknown;
    }
    if (marks.games < opts.games) {
      const Result r = PlayAgainstTheSolver(e, *engine, solver, opts);
      ++marks.games;
      marks.games_won += r == WinFor(e.position.side_to_move());
      marks.games_drawn += r == Result::kDraw;
    }
  }
  return marks;
}

std::vector<SourceRow> CompareWithSources(const std::vector<ExamPosition>& set, const ExamMarks& marks,
                                          Simultaneous rule) {
  std::vector<SourceRow> rows = {{"1"}, {"2-5"}, {"6-9"}, {"10-13"}, {"14 or more"}, {"all"}};
  for (size_t i = 0; i < set.size() && i < marks.value_marks.size(); ++i) {
    const ExamPosition& e = set[i];
    const solve::Outcome truth = e.Under(rule);
    if (marks.value_marks[i] < 0 || e.game_result == solve::Outcome::kUnknown) continue;
    const int plies = e.PliesUnder(rule);
    SourceRow& row = rows[plies <= 1 ? 0 : plies <= 5 ? 1 : plies <= 9 ? 2 : plies <= 13 ? 3 : 4];
    const bool against = e.game_result != truth, wrong = marks.value_marks[i] == 0;
    for (SourceRow* r : {&row, &rows.back()}) {
      ++r->positions;
      r->game_against += against;
      r->net_wrong += wrong;
      r->both += against && wrong;
    }
  }
  return rows;
}

}  // namespace loa
