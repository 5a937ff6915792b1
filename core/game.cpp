#include "core/game.h"

#include <cassert>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/param_visitor.h"

namespace loa {

namespace {

// The rule sets of other programs (docs/RULES.md, "Other programs' rules").
constexpr std::pair<const char*, const char*> kRuleSets[] = {
    {"olympiad", ""},
    {"openspiel", "simultaneous=mover no_moves=loss repetition=2 repetition_of=board max_plies=1000"},
    {"cutechess", "no_moves=loss"},
    {"playstrategy", "no_moves=draw repetition=5 no_capture_plies=100"},
};

// The key=value words of the rules' options, in Visit's order.
std::vector<std::string> OptionWords(Rules rules) {
  TextParamWriter writer;
  rules.Visit(writer);
  std::istringstream in(writer.text());
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

const char* SimultaneousName(Simultaneous s) { return s == Simultaneous::kDraw ? "draw" : "mover"; }
const char* StartName(StartKind s) { return s == StartKind::kStandard ? "standard" : "scrambled"; }
const char* NoMovesName(NoMoves n) { return n == NoMoves::kPass ? "pass" : n == NoMoves::kLoss ? "loss" : "draw"; }
const char* RepetitionOfName(RepetitionOf r) { return r == RepetitionOf::kPosition ? "position" : "board"; }

std::string RuleSet(std::string_view name) {
  std::string known;
  for (const auto& [set, options] : kRuleSets) {
    if (name == set) return options;
    known += std::string(known.empty() ? "" : ", ") + set;
  }
  throw ParseError("rule set '" + Excerpt(name) + "': known are " + known);
}

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
  std::string no_moves_name = NoMovesName(no_moves), repetition_of_name = RepetitionOfName(repetition_of);
  v.Choice("no_moves", no_moves_name, {"pass", "loss", "draw"},
           "a side with no legal move: passes (Olympiad), loses (OpenSpiel, cutechess) or draws (PlayStrategy)");
  v.Int("repetition", repetition, 2, 100, "the occurrence of a repeated position that draws (Olympiad 3, OpenSpiel 2)");
  v.Choice("repetition_of", repetition_of_name, {"position", "board"},
           "a repetition compares the pieces and the side to move (Olympiad) or the pieces alone (OpenSpiel)");
  v.Int("no_capture_plies", no_capture_plies, 0, 100000,
        "a draw after this many plies without a capture (PlayStrategy 100; 0: never)");
  simultaneous =
      simultaneous_name == SimultaneousName(Simultaneous::kDraw) ? Simultaneous::kDraw : Simultaneous::kMover;
  start = start_name == StartName(StartKind::kStandard) ? StartKind::kStandard : StartKind::kScrambled;
  no_moves = no_moves_name == "pass" ? NoMoves::kPass : no_moves_name == "loss" ? NoMoves::kLoss : NoMoves::kDraw;
  repetition_of = repetition_of_name == "position" ? RepetitionOf::kPosition : RepetitionOf::kBoard;
}

std::string Rules::ToString() const {
  // The first four always; the others where they are not the Olympiad's.
  constexpr size_t kAlways = 4;
  const std::vector<std::string> words = OptionWords(*this), olympiad = OptionWords(Rules());
  std::string text;
  for (size_t i = 0; i < words.size(); ++i)
    if (i < kAlways || words[i] != olympiad[i]) text += (text.empty() ? "" : " ") + words[i];
  return text;
}

Rules Rules::FromString(std::string_view text) {
  std::string normalized(text);
  for (char& ch : normalized)
    if (ch == ',') ch = ' ';
  std::istringstream in(normalized);
  const std::string context = "rules '" + Excerpt(text) + "'";
  std::vector<std::string> settings;
  for (std::string setting; in >> setting;) {
    if (setting.find('=') != std::string::npos) {
      settings.push_back(setting);
      continue;
    }
    std::istringstream set(RuleSet(setting));  // a rule set's options, before the pairs after it
    for (std::string option; set >> option;) settings.push_back(option);
  }
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
    throw ParseError(context + ": unknown option '" + Excerpt(key) +
                     "' (known: simultaneous, start, size, max_plies, no_moves, repetition, "
                     "repetition_of, no_capture_plies, or a rule set's name)");
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
    case Reason::kNoMoves:
      return "no-moves";
    case Reason::kNoCapture:
      return "no-capture";
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
  quiet_.push_back(0);
  Verdict v = UnitedVerdict(start, Opponent(start.side_to_move()), rules.simultaneous);
  if (!v.over()) v = NoMovesVerdict(start);
  verdicts_.push_back(v);
}

int Game::Occurrences(const Position& pos) const {
  auto count = [&](uint64_t hash) {
    auto it = occurrences_.find(hash);
    return it == occurrences_.end() ? 0 : it->second;
  };
  if (rules_.repetition_of == RepetitionOf::kPosition) return count(pos.hash());
  const Position other_side(pos.pieces(kBlack), pos.pieces(kWhite), Opponent(pos.side_to_move()), pos.size());
  return count(pos.hash()) + count(other_side.hash());
}

Verdict Game::NoMovesVerdict(const Position& pos) const {
  if (rules_.no_moves == NoMoves::kPass || !pos.IsLegal(Move::Pass())) return {};
  return rules_.no_moves == NoMoves::kLoss ? Verdict{WinFor(Opponent(pos.side_to_move())), Reason::kNoMoves}
                                           : Verdict{Result::kDraw, Reason::kNoMoves};
}

void Game::LegalMoves(MoveList& moves) const {
  if (!over()) position().GenerateMoves(moves);
}

Verdict Game::Judge(const Position& pos, Color mover) const {
  Verdict v = UnitedVerdict(pos, mover, rules_.simultaneous);
  if (v.over()) return v;
  if (Occurrences(pos) >= rules_.repetition) return {Result::kDraw, Reason::kRepetition};
  if (rules_.max_plies > 0 && ply() >= rules_.max_plies) return {Result::kDraw, Reason::kCap};
  if (rules_.no_capture_plies > 0 && quiet_.back() >= rules_.no_capture_plies)
    return {Result::kDraw, Reason::kNoCapture};
  return NoMovesVerdict(pos);
}

void Game::Play(Move m) {
  assert(!over());
  assert(position().IsLegal(m));
  const Color mover = position().side_to_move();
  positions_.push_back(position().Apply(m));
  moves_.push_back(m);
  quiet_.push_back(m.is_capture() ? 0 : quiet_.back() + 1);
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
  quiet_.pop_back();
  verdicts_.pop_back();
  return true;
}

}  // namespace loa
