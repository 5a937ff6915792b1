#include "play/uci_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <istream>
#include <ostream>
#include <sstream>

#include "alphabeta/search_types.h"
#include "core/error.h"
#include "core/notation.h"
#include "play/spec.h"

namespace loa {
namespace {

constexpr const char* kVariant = "linesofaction";
// How often a running search reports what it has found.
constexpr std::chrono::milliseconds kInfoPeriod{1000};

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
  if (!a.top.empty()) {
    // A net's value: lc0's centipawns, and its win, draw and loss.
    const double q = std::clamp(a.value, -1.0, 1.0), d = std::clamp(a.draw, 0.0, 1.0);
    const long cp = std::lround(std::clamp(90 * std::tan(1.5637541897 * q), -12800.0, 12800.0));
    const long w = std::lround(std::clamp(500 * (1 - d + q), 0.0, 1000.0));
    const long l = std::lround(std::clamp(500 * (1 - d - q), 0.0, 1000.0));
    s << " score cp " << cp << " wdl " << w << " " << std::max(0L, 1000 - w - l) << " " << l;
  } else if (ab::IsDecisiveScore(a.score)) {
    const int plies = ab::kWinScore - std::abs(a.score);
    s << " score mate " << (a.score > 0 ? (plies + 1) / 2 : -(plies / 2));
  } else {
    s << " score cp " << a.score;
  }
  if (!a.pv.empty()) {
    s << " pv";
    for (Move m : a.pv) s << " " << UciMove(m);
  }
  return s.str();
}

UciEngine::UciEngine(std::string player_spec) : player_spec_(std::move(player_spec)) {}

UciEngine::~UciEngine() { EndSearch(); }

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

std::string UciEngine::Spec() const {
  const PlayerSpec spec = PlayerSpec::Parse(player_spec_);
  std::string text = spec.text();
  if (threads_ > 0 && (spec.kind() == "mcts" || spec.kind() == "ab"))
    text = PlayerSpec::Parse(text).TextWith({"threads"}, "threads=" + std::to_string(threads_));
  if (!net_.empty() && spec.kind() == "mcts") text = PlayerSpec::Parse(text).TextWith({"net"}, "net=" + net_);
  return text;
}

Player& UciEngine::CurrentPlayer() {
  const std::string spec = Spec();
  if (!player_ || spec != player_made_from_) {
    player_ = MakePlayer(spec);  // throws naming the spec; the old player stays
    player_made_from_ = spec;
    player_->NewGame();
  }
  return *player_;
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
    const int64_t threads = PlayerSpec::Parse(player_spec_).GetInt("threads", 1, 1, 256);
    Send("option name Threads type spin default " + std::to_string(threads) + " min 1 max 256");
    Send("option name Player type string default " + player_spec_);
    Send("option name Net type string default <empty>");
    Send("uciok");
  } else if (command == "isready") {
    try {
      CurrentPlayer();
    } catch (const Error& e) {
      Send(std::string("info string ") + e.what());
    }
    Send("readyok");
  } else if (command == "ucinewgame") {
    EndSearch();
    game_ = Game();
    if (player_) player_->NewGame();
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
    threads_ = threads;
  } else if (lower == "player") {
    const std::string old = player_spec_;
    player_spec_ = value;
    try {
      CurrentPlayer();  // a spec that makes no player keeps the one before
    } catch (const Error&) {
      player_spec_ = old;
      throw;
    }
  } else if (lower == "net") {
    net_ = value == "<empty>" ? "" : value;
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
    start = Position::FromFen(Join(words, 2, m));
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
  Clock clock;
  double movetime = 0;
  int64_t nodes = 0;
  bool infinite = false;
  const Color us = game_.position().side_to_move();
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "infinite") {
      infinite = true;
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
      movetime = double(GoNumber(words, ++i)) / 1000;
    } else if (w == "nodes") {
      nodes = GoNumber(words, ++i);
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
  Player& player = CurrentPlayer();
  if (!player.PlaysBoardSize(game_.position().size()))
    throw Error("go: " + player.name() + " does not play the " + std::to_string(game_.position().size()) + "x" +
                std::to_string(game_.position().size()) + " board");
  {
    std::lock_guard<std::mutex> lock(search_mutex_);
    searching_ = true;
  }
  stop_requested_ = false;
  const Game game = game_;
  search_ = std::thread([this, &player, game, clock, movetime, nodes, infinite] {
    Move move;
    try {
      if (game.over()) {
        Send(std::string("info string the game is over: ") + ResultName(game.result()) + " " +
             ReasonName(game.reason()));
      } else if (infinite) {
        move = player.Analyse(game, 1e9, nodes);
      } else if (movetime > 0 || nodes > 0) {
        move = player.ChooseMoveWithin(game, movetime, nodes);
      } else {
        move = player.ChooseMove(game, clock);
      }
    } catch (const Error& e) {
      Send(std::string("info string ") + e.what());
    }
    if (move.is_null() && !game.over()) {  // stopped before it found one, or failed: a legal move still
      MoveList moves;
      game.LegalMoves(moves);
      if (moves.size() > 0) move = moves[0];
    }
    if (!game.over()) Send(UciInfo(player.LastAnalysis()));
    std::unique_lock<std::mutex> lock(search_mutex_);
    // An infinite search answers only when told to stop (UCI).
    if (infinite) search_done_.wait(lock, [this] { return stop_requested_.load(); });
    Send("bestmove " + UciMove(move));
    searching_ = false;
    search_done_.notify_all();
  });
  reporter_ = std::thread([this, &player] {
    std::unique_lock<std::mutex> lock(search_mutex_);
    while (!search_done_.wait_for(lock, kInfoPeriod, [this] { return !searching_; })) {
      lock.unlock();
      Send(UciInfo(player.CurrentAnalysis()));
      lock.lock();
    }
  });
}

void UciEngine::EndSearch() {
  if (!search_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(search_mutex_);
    stop_requested_ = true;
    search_done_.notify_all();
    // Stop until it has answered: a stop that came before the search began would be lost.
    while (searching_) {
      lock.unlock();
      if (player_) player_->Stop();
      lock.lock();
      search_done_.wait_for(lock, std::chrono::milliseconds(10), [this] { return !searching_; });
    }
  }
  search_.join();
  reporter_.join();
}

}  // namespace loa
