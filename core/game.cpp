#include "core/game.h"

#include <cassert>
#include <sstream>

#include "core/error.h"

namespace loa {

namespace {

constexpr int kRepetitionLimit = 3;  // RULES.md rule 9: the third occurrence draws.

}  // namespace

std::string Rules::ToString() const {
  std::ostringstream out;
  out << "simultaneous=" << (simultaneous == Simultaneous::kDraw ? "draw" : "mover")
      << " start=" << (start == StartKind::kStandard ? "standard" : "scrambled") << " max_plies=" << max_plies;
  return out.str();
}

Rules Rules::FromString(std::string_view text) {
  Rules rules;
  std::string normalized(text);
  for (char& ch : normalized)
    if (ch == ',') ch = ' ';
  std::istringstream in(normalized);
  std::string pair;
  while (in >> pair) {
    const size_t eq = pair.find('=');
    const std::string key = pair.substr(0, eq), value = eq == std::string::npos ? "" : pair.substr(eq + 1);
    auto bad = [&](const char* expected) {
      throw ParseError("rules '" + std::string(text) + "': " + key + "=" + value + " (expected " + expected + ")");
    };
    if (key == "simultaneous") {
      if (value == "draw")
        rules.simultaneous = Simultaneous::kDraw;
      else if (value == "mover")
        rules.simultaneous = Simultaneous::kMover;
      else
        bad("draw or mover");
    } else if (key == "start") {
      if (value == "standard")
        rules.start = StartKind::kStandard;
      else if (value == "scrambled")
        rules.start = StartKind::kScrambled;
      else
        bad("standard or scrambled");
    } else if (key == "max_plies") {
      size_t used = 0;
      int n = -1;
      try {
        n = std::stoi(value, &used);
      } catch (const std::exception&) {
      }
      if (used != value.size() || n < 0) bad("a whole number >= 0");
      rules.max_plies = n;
    } else {
      throw ParseError("rules '" + std::string(text) + "': unknown option '" + key +
                       "' (known: simultaneous, start, max_plies)");
    }
  }
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

Game::Game(const Rules& rules) : Game(rules, Position::Start(rules.start)) {}

Game::Game(const Rules& rules, const Position& start) : rules_(rules) {
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

bool Game::Undo() {
  if (moves_.empty()) return false;
  auto it = occurrences_.find(position().hash());
  if (--it->second == 0) occurrences_.erase(it);
  positions_.pop_back();
  moves_.pop_back();
  verdicts_.pop_back();
  return true;
}

}  // namespace loa
