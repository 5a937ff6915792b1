#include "play/uci_engine.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <ostream>
#include <sstream>

#include "core/error.h"
#include "core/formats.h"
#include "core/notation.h"

namespace loa {
namespace {

constexpr const char* kVariant = "linesofaction";

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string Join(const std::vector<std::string>& words, size_t begin, size_t end) {
  std::string text;
  for (size_t i = begin; i < end && i < words.size(); ++i) text += (text.empty() ? "" : " ") + words[i];
  return text;
}

// UCI's null move stands for the pass.
std::string UciMove(Move m) { return m.is_null() || m.is_pass() ? "0000" : FormatMoveUnmarked(m); }

Move ReadUciMove(const std::string& text, const Position& pos) {
  return ParseMove(text == "0000" ? "pass" : text, pos);
}

// A number of milliseconds (or a count) of `go`, never negative.
int64_t GoNumber(const std::vector<std::string>& words, size_t i) {
  if (i >= words.size()) throw Error("go " + words[i - 1] + ": no value");
  size_t used = 0;
  long long value = -1;
  try {
    value = std::stoll(words[i], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != words[i].size() || used == 0)
    throw Error("go " + words[i - 1] + " '" + Excerpt(words[i], 20) + "' is not a number");
  return std::max(0LL, value);
}

}  // namespace

std::string UciInfo(const MoveAnalysis& a) {
  if (!a.available) return "";
  std::ostringstream s;
  const int depth = a.depth > 0 ? a.depth : std::max<int>(1, int(a.pv.size()));
  const int64_t ms = int64_t(a.seconds * 1000);
  s << "info depth " << depth << " nodes " << a.nodes << " nps " << (a.seconds > 0 ? int64_t(a.nodes / a.seconds) : 0)
    << " time " << ms;
  int mate = 0;
  const int cp = ScoreCentipawns(a, &mate);
  if (mate != 0) {
    s << " score mate " << mate;
  } else {
    s << " score cp " << cp;
  }
  if (!a.top.empty()) {  // a net's win, draw and loss
    const double q = std::clamp(a.value, -1.0, 1.0), d = std::clamp(a.draw, 0.0, 1.0);
    const long w = std::lround(std::clamp(500 * (1 - d + q), 0.0, 1000.0));
    const long l = std::lround(std::clamp(500 * (1 - d - q), 0.0, 1000.0));
    s << " wdl " << w << " " << std::max(0L, 1000 - w - l) << " " << l;
  }
  if (!a.pv.empty()) {
    s << " pv";
    for (Move m : a.pv) s << " " << UciMove(m);
  }
  return s.str();
}

UciEngine::UciEngine(std::string player_spec) : player_(std::move(player_spec)) {}

UciEngine::~UciEngine() = default;

void UciEngine::Send(const std::string& line) {
  if (line.empty()) return;
  std::lock_guard<std::mutex> lock(out_mutex_);
  *out_ << line << '\n' << std::flush;
}

void UciEngine::Run(std::istream& in, std::ostream& out) {
  out_ = &out;
  for (std::string line; !quit_ && std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    try {
      Handle(line);
    } catch (const Error& e) {
      Send(std::string("info string ") + e.what());
    }
  }
  EndSearch();
}

void UciEngine::Handle(const std::string& line) {
  const std::vector<std::string> words = Words(line);
  if (words.empty()) return;
  const std::string& command = words[0];
  if (command == "uci") {
    Send("id name LOAZero");
    Send("id author the LOAZero developers");
    Send(std::string("option name UCI_Variant type combo default ") + kVariant + " var " + kVariant);
    // The default the spec gives (the engine's: the machine's cores, at most 2).
    Send("option name Threads type spin default " + std::to_string(player_.SpecThreads()) + " min 1 max 256");
    Send("option name Player type string default " + player_.spec());
    Send("option name Net type string default <empty>");
    Send("uciok");
  } else if (command == "isready") {
    try {
      player_.Get();
    } catch (const Error& e) {
      Send(std::string("info string ") + e.what());
    }
    Send("readyok");
  } else if (command == "ucinewgame") {
    EndSearch();
    game_ = Game();
    player_.NewGame();
  } else if (command == "setoption") {
    SetOption(words);
  } else if (command == "position") {
    SetPosition(words);
  } else if (command == "go") {
    Go(words);
  } else if (command == "stop") {
    EndSearch();
  } else if (command == "quit") {
    EndSearch();
    quit_ = true;
  } else if (command == "ponderhit" || command == "debug" || command == "register") {
    // No pondering, no debug output, no registration: nothing to do.
  } else {
    Send("info string unknown command '" + Excerpt(command, 40) + "'");
  }
}

void UciEngine::SetOption(const std::vector<std::string>& words) {
  const auto name_at = std::find(words.begin(), words.end(), "name");
  const auto value_at = std::find(words.begin(), words.end(), "value");
  if (name_at == words.end()) throw Error("setoption: expected 'setoption name NAME [value VALUE]'");
  const size_t n = size_t(name_at - words.begin()) + 1, v = size_t(value_at - words.begin());
  std::string name = Join(words, n, v), value = v < words.size() ? Join(words, v + 1, words.size()) : "";
  std::string lower = name;
  for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  EndSearch();
  if (lower == "uci_variant") {
    if (value != kVariant) throw Error("setoption UCI_Variant: '" + Excerpt(value, 40) + "' is not " + kVariant);
  } else if (lower == "threads") {
    size_t used = 0;
    int threads = 0;
    try {
      threads = std::stoi(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || threads < 1 || threads > 256)
      throw Error("setoption Threads: '" + Excerpt(value, 20) + "' is not a number from 1 to 256");
    player_.SetThreads(threads);
  } else if (lower == "player") {
    player_.SetSpec(value);  // a spec that makes no player keeps the one before
  } else if (lower == "net") {
    player_.SetNet(value == "<empty>" ? "" : value);
  } else {
    throw Error("setoption: no option '" + Excerpt(name, 40) + "' (UCI_Variant, Threads, Player, Net)");
  }
}

void UciEngine::SetPosition(const std::vector<std::string>& words) {
  EndSearch();
  const auto moves_at = std::find(words.begin(), words.end(), "moves");
  const size_t m = size_t(moves_at - words.begin());
  Position start;
  if (words.size() >= 2 && words[1] == "startpos") {
    start = Position::Start();
  } else if (words.size() >= 3 && words[1] == "fen") {
    start = ReadPosition(Join(words, 2, m));
  } else {
    throw Error("position: expected 'position startpos|fen FEN [moves ...]'");
  }
  Rules rules;
  rules.size = start.size();
  Game game(rules, start);
  for (size_t i = m + 1; i < words.size(); ++i) {
    if (game.over())
      throw Error("position: move '" + Excerpt(words[i], 20) + "' after the game ended (" + ResultName(game.result()) +
                  ")");
    game.Play(ReadUciMove(words[i], game.position()));
  }
  game_ = std::move(game);  // only a position that reads replaces the game
}

void UciEngine::Go(const std::vector<std::string>& words) {
  EndSearch();
  MoveLimits limits;
  Clock& clock = limits.clock;
  const Color us = game_.position().side_to_move();
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "infinite") {
      limits.infinite = true;
    } else if (w == "ponder") {
      // Searched as a normal move: no pondering.
    } else if (w == "wtime" || w == "btime") {
      const double s = double(GoNumber(words, ++i)) / 1000;
      if ((w == "wtime") == (us == kWhite)) clock.main_seconds = std::max(s, 0.001);
    } else if (w == "winc" || w == "binc") {
      const double s = double(GoNumber(words, ++i)) / 1000;
      if ((w == "winc") == (us == kWhite)) clock.increment_seconds = s;
    } else if (w == "movestogo") {
      clock.moves_to_go = int(std::min<int64_t>(GoNumber(words, ++i), 1000000));
    } else if (w == "movetime") {
      limits.movetime = double(GoNumber(words, ++i)) / 1000;
    } else if (w == "nodes") {
      limits.nodes = GoNumber(words, ++i);
    } else if (w == "depth" || w == "mate") {
      GoNumber(words, ++i);
      Send("info string go " + w + ": not a limit of this engine; searching by the other limits");
    } else if (w == "searchmoves") {
      Send("info string go searchmoves: not supported; searching every move");
      while (i + 1 < words.size() && words[i + 1].size() >= 4 &&
             std::isalpha(static_cast<unsigned char>(words[i + 1][0])) &&
             std::isdigit(static_cast<unsigned char>(words[i + 1][1])))
        ++i;
    } else {
      throw Error("go: unknown parameter '" + Excerpt(w, 20) + "'");
    }
  }
  // A go is always answered: one that cannot search says why and answers
  // the null move at once, which a match manager takes as a forfeit, not a wait.
  Player* made = nullptr;
  try {
    made = &player_.Get();
    if (!made->PlaysBoardSize(game_.position().size()))
      throw Error("go: " + made->name() + " does not play the " + std::to_string(game_.position().size()) + "x" +
                  std::to_string(game_.position().size()) + " board");
  } catch (const Error& e) {
    Send(std::string("info string ") + e.what());
    Send("bestmove 0000");
    return;
  }
  Player& player = *made;
  if (game_.over())
    Send(std::string("info string the game is over: ") + ResultName(game_.result()) + " " + ReasonName(game_.reason()));
  EngineSearch::Callbacks callbacks;
  callbacks.report = [this](const MoveAnalysis& a) { Send(UciInfo(a)); };
  callbacks.note = [this](const std::string& note) { Send("info string " + note); };
  callbacks.done = [this](Move move, const MoveAnalysis& a) {
    Send(UciInfo(a));
    Send("bestmove " + UciMove(move));
  };
  search_.Start(player, game_, limits, callbacks);
}

}  // namespace loa
