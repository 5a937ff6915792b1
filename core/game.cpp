#include "core/game.h"

#include <cassert>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/param_visitor.h"

namespace loa {

namespace {

constexpr int kRepetitionLimit = 3;  // docs/RULES.md rule 9: the third occurrence draws.

}  // namespace

const char* SimultaneousName(Simultaneous s) { return s == Simultaneous::kDraw ? "draw" : "mover"; }
const char* StartName(StartKind s) { return s == StartKind::kStandard ? "standard" : "scrambled"; }

void Rules::Visit(ParamVisitor& v) {
  std::string simultaneous_name = SimultaneousName(simultaneous);
  std::string start_name = StartName(start);
  v.Choice("simultaneous", simultaneous_name,
           {SimultaneousName(Simultaneous::kDraw), SimultaneousName(Simultaneous::kMover)},
           "a move that unites both sides: draw (Olympiad) or a win for the mover");
  v.Choice("start", start_name, {StartName(StartKind::kStandard), StartName(StartKind::kScrambled)},
           "the start position: standard or Scrambled Eggs");
  v.Int("size", size, kMinBoardSize, kBoardSize, "the board's size: 8 (the Olympiad's), 7 or 6");
  v.Int("max_plies", max_plies, 0, 100000, "a game reaching this many plies is a draw marked 'cap' (0: no cap)");
  simultaneous =
      simultaneous_name == SimultaneousName(Simultaneous::kDraw) ? Simultaneous::kDraw : Simultaneous::kMover;
  start = start_name == StartName(StartKind::kStandard) ? StartKind::kStandard : StartKind::kScrambled;
}

std::string Rules::ToString() const {
  Rules copy = *this;
  TextParamWriter writer;
  copy.Visit(writer);
  return writer.text();
}

Rules Rules::FromString(std::string_view text) {
  std::string normalized(text);
  for (char& ch : normalized)
    if (ch == ',') ch = ' ';
  std::istringstream in(normalized);
  const std::string context = "rules '" + Excerpt(text) + "'";
  std::vector<std::string> settings;
  for (std::string setting; in >> setting;) settings.push_back(setting);
  const std::map<std::string, std::string> pairs = KeyValueMap(settings, context);
  Rules rules;
  MapParamReader reader(pairs, context);
  try {
    rules.Visit(reader);
  } catch (const ParseError&) {
    throw;
  } catch (const Error& e) {
    throw ParseError(e.what());  // a value out of range is unreadable text here
  }
  for (const std::string& key : reader.UnknownKeys())
    throw ParseError(context + ": unknown option '" + Excerpt(key) + "' (known: simultaneous, start, size, max_plies)");
  return rules;
}

const char* ResultName(Result r) {
  switch (r) {
    case Result::kBlackWins:
      return "black";
    case Result::kWhiteWins:
      return "white";
    case Result::kDraw:
      return "draw";
    case Result::kOngoing:
      break;
  }
  return "ongoing";
}

const char* ReasonName(Reason r) {
  switch (r) {
    case Reason::kUnited:
      return "united";
    case Reason::kBothUnited:
      return "both-united";
    case Reason::kRepetition:
      return "repetition";
    case Reason::kCap:
      return "cap";
    case Reason::kTimeout:
      return "timeout";
    case Reason::kNone:
      break;
  }
  return "-";
}

Verdict UnitedVerdict(const Position& pos, Color mover, Simultaneous simultaneous) {
  const bool mover_united = pos.IsUnited(mover), other_united = pos.IsUnited(Opponent(mover));
  if (mover_united && other_united) {
    return simultaneous == Simultaneous::kDraw ? Verdict{Result::kDraw, Reason::kBothUnited}
                                               : Verdict{WinFor(mover), Reason::kBothUnited};
  }
  if (mover_united) return {WinFor(mover), Reason::kUnited};
  if (other_united) return {WinFor(Opponent(mover)), Reason::kUnited};
  return {};
}

Game::Game(const Rules& rules) : Game(rules, rules.StartPosition()) {}

Game::Game(const Rules& rules, const Position& start) : rules_(rules) {
  if (start.size() != rules.size)
    throw ParseError("position '" + start.ToString() + "' is " + std::to_string(start.size()) + "x" +
                     std::to_string(start.size()) + " but the rules say size=" + std::to_string(rules.size));
  positions_.push_back(start);
  occurrences_[start.hash()] = 1;
  verdicts_.push_back(UnitedVerdict(start, Opponent(start.side_to_move()), rules.simultaneous));
}

int Game::Occurrences(const Position& pos) const {
  auto it = occurrences_.find(pos.hash());
  return it == occurrences_.end() ? 0 : it->second;
}

void Game::LegalMoves(MoveList& moves) const {
  if (!over()) position().GenerateMoves(moves);
}

Verdict Game::Judge(const Position& pos, Color mover) const {
  Verdict v = UnitedVerdict(pos, mover, rules_.simultaneous);
  if (v.over()) return v;
  if (Occurrences(pos) >= kRepetitionLimit) return {Result::kDraw, Reason::kRepetition};
  if (rules_.max_plies > 0 && ply() >= rules_.max_plies) return {Result::kDraw, Reason::kCap};
  return v;
}

void Game::Play(Move m) {
  assert(!over());
  assert(position().IsLegal(m));
  const Color mover = position().side_to_move();
  positions_.push_back(position().Apply(m));
  moves_.push_back(m);
  ++occurrences_[position().hash()];
  verdicts_.push_back(Judge(position(), mover));
}

void Game::Forfeit(Color loser) {
  assert(!over());
  forfeit_ = {WinFor(Opponent(loser)), Reason::kTimeout};
}

bool Game::Undo() {
  if (forfeit_.over()) {
    forfeit_ = Verdict();
    return true;
  }
  if (moves_.empty()) return false;
  auto it = occurrences_.find(position().hash());
  if (--it->second == 0) occurrences_.erase(it);
  positions_.pop_back();
  moves_.pop_back();
  verdicts_.pop_back();
  return true;
}

}  // namespace loa
