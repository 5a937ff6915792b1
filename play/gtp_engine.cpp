#include "play/gtp_engine.h"

#include <cctype>
#include <climits>
#include <istream>
#include <ostream>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/file_util.h"
#include "core/formats.h"
#include "core/notation.h"
#include "core/record.h"
#include "solve/dfpn.h"

namespace loa {
namespace {

constexpr const char* kEngineName = "LOAZero";
constexpr const char* kEngineVersion = "0.1.0";
// The longest command line read; a longer one is answered with an error.
constexpr size_t kMaxLineBytes = 64 * 1024;

const std::vector<std::string>& KnownCommands() {
  static const std::vector<std::string> kCommands = {
      "protocol_version", "name",         "version",     "known_command", "list_commands", "quit",
      "boardsize",        "clear_board",  "play",        "genmove",       "undo",          "showboard",
      "time_settings",    "time_left",    "final_score", "loa_position",  "loa_rules",     "loa_legal_moves",
      "loa_result",       "loa_loadgame", "loa_solve"};
  return kCommands;
}

// A failed command: its message becomes the `?` reply.
struct CommandError {
  std::string message;
};

// Parses a colour word: b, black, w, white, any case.
Color ParseColor(const std::string& word) {
  std::string lower;
  for (char ch : word) lower += char(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "b" || lower == "black") return kBlack;
  if (lower == "w" || lower == "white") return kWhite;
  throw CommandError{"invalid color '" + Excerpt(word, 20) + "' (b, black, w or white)"};
}

const char* ColorName(Color c) { return c == kBlack ? "black" : "white"; }

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Returns the number in `word`, or throws naming what it is for; a clock's
// times and stones are never negative.
int ParseInt(const std::string& word, const char* what, int min = INT_MIN) {
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != word.size())
    throw CommandError{std::string(what) + " '" + Excerpt(word, 20) + "' is not a number"};
  if (value < min) throw CommandError{std::string(what) + " " + word + " is below " + std::to_string(min)};
  return value;
}

// Returns "black united", "draw repetition", "ongoing".
std::string ResultText(const Game& game) {
  if (!game.over()) return "ongoing";
  return std::string(ResultName(game.result())) + " " + ReasonName(game.reason());
}

// Removes control characters, turns tabs into spaces, drops a comment.
std::string Clean(const std::string& line) {
  std::string out;
  for (char ch : line) {
    if (ch == '#') break;
    if (ch == '\t')
      out += ' ';
    else if (static_cast<unsigned char>(ch) >= 32 && ch != 127)
      out += ch;
  }
  const size_t first = out.find_first_not_of(' '), last = out.find_last_not_of(' ');
  return first == std::string::npos ? "" : out.substr(first, last - first + 1);
}

// Reads one line (without its newline) of at most kMaxLineBytes into line;
// a longer line is read to its end and dropped, and `too_long` set. Returns
// false at the end of the input with nothing read.
bool ReadLine(std::istream& in, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buffer = in.rdbuf();
  for (;;) {
    const int ch = buffer->sbumpc();
    if (ch == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty() || too_long;
    }
    if (ch == '\n') return true;
    if (line.size() < kMaxLineBytes)
      line += char(ch);
    else
      too_long = true;
  }
}

}  // namespace

GtpEngine::GtpEngine(std::unique_ptr<Player> player, const Rules& rules) : player_(std::move(player)), game_(rules) {
  player_->NewGame();
}

std::string GtpEngine::Handle(const std::string& raw) {
  const std::string line = Clean(raw);
  if (line.empty()) return "";
  size_t pos = 0;
  while (pos < line.size() && std::isdigit(static_cast<unsigned char>(line[pos]))) ++pos;
  std::string id;
  if (pos > 0 && (pos == line.size() || line[pos] == ' '))
    id = line.substr(0, pos);
  else
    pos = 0;
  const std::string rest = Clean(line.substr(pos));
  const size_t space = rest.find(' ');
  const std::string command = rest.substr(0, space);
  const std::string args = space == std::string::npos ? "" : Clean(rest.substr(space));
  try {
    if (command.empty()) throw CommandError{"empty command"};
    return "=" + id + " " + Execute(command, args) + "\n\n";
  } catch (const CommandError& e) {
    return "?" + id + " " + e.message + "\n\n";
  } catch (const Error& e) {
    return "?" + id + " " + e.what() + "\n\n";
  }
}

void GtpEngine::Run(std::istream& in, std::ostream& out) {
  std::string line;
  bool too_long = false;
  while (!quit_ && ReadLine(in, line, too_long)) {
    const std::string reply =
        too_long ? "? line longer than " + std::to_string(kMaxLineBytes) + " bytes, the most this engine reads\n\n"
                 : Handle(line);
    if (reply.empty()) continue;
    out << reply;
    out.flush();
  }
}

std::string GtpEngine::Execute(const std::string& command, const std::string& args) {
  const std::vector<std::string> words = Words(args);
  if (command == "protocol_version") return "2";
  if (command == "name") return kEngineName;
  if (command == "version") return kEngineVersion;
  if (command == "known_command") {
    for (const std::string& known : KnownCommands())
      if (!words.empty() && words[0] == known) return "true";
    return "false";
  }
  if (command == "list_commands") {
    std::string list;
    for (const std::string& known : KnownCommands()) list += (list.empty() ? "" : "\n") + known;
    return list;
  }
  if (command == "quit") {
    quit_ = true;
    return "";
  }
  if (command == "boardsize") {
    if (words.size() != 1) throw CommandError{"boardsize takes one number"};
    const int size = ParseInt(words[0], "board size");
    if (!IsBoardSize(size)) throw CommandError{"unacceptable size: LOA is played on 6x6, 7x7 or 8x8"};
    Rules rules = game_.rules();
    rules.size = size;
    NewGame(rules, rules.StartPosition());
    return "";
  }
  if (command == "clear_board") {
    NewGame(game_.rules(), game_.rules().StartPosition());
    return "";
  }
  if (command == "play") return Play(args);
  if (command == "genmove") return Genmove(args);
  if (command == "undo") {
    if (!game_.Undo()) throw CommandError{"cannot undo: no move played"};
    return "";
  }
  if (command == "showboard") return ShowBoard();
  if (command == "time_settings" || command == "time_left") return SetClock(command, words);
  return ExecuteGameCommand(command, args);
}

std::string GtpEngine::ExecuteGameCommand(const std::string& command, const std::string& args) {
  if (command == "final_score") {
    if (!game_.over()) throw CommandError{"game is not over"};
    return game_.result() == Result::kDraw ? "0" : game_.result() == Result::kBlackWins ? "B+" : "W+";
  }
  if (command == "loa_position") {
    if (args.empty()) throw CommandError{"loa_position takes a position string"};
    const Position pos = ReadPosition(args);
    Rules rules = game_.rules();
    rules.size = pos.size();  // the string's ranks say the board's size
    NewGame(rules, pos);
    return "";
  }
  if (command == "loa_rules") return SetRules(args);
  if (command == "loa_legal_moves") {
    MoveList moves;
    game_.LegalMoves(moves);
    std::string list;
    for (Move m : moves) list += (list.empty() ? "" : " ") + FormatMove(m);
    return list;
  }
  if (command == "loa_result") return ResultText(game_);
  if (command == "loa_loadgame") return LoadGame(args);
  if (command == "loa_solve") return Solve(Words(args));
  throw CommandError{"unknown command '" + Excerpt(command, 40) + "'"};
}

std::string GtpEngine::SetClock(const std::string& command, const std::vector<std::string>& words) {
  if (command == "time_settings") {
    if (words.size() != 3) throw CommandError{"time_settings takes main_time byo_yomi_time byo_yomi_stones"};
    Clock clock;
    clock.main_seconds = ParseInt(words[0], "main time", 0);
    clock.byoyomi_seconds = ParseInt(words[1], "byo-yomi time", 0);
    clock.byoyomi_stones = ParseInt(words[2], "byo-yomi stones", 0);
    clocks_[kBlack] = clocks_[kWhite] = clock;
    return "";
  }
  if (words.size() != 3) throw CommandError{"time_left takes color time stones"};
  Clock& clock = clocks_[ParseColor(words[0])];
  const int seconds = ParseInt(words[1], "time", 0), stones = ParseInt(words[2], "stones", 0);
  // Stones 0: main time is running; else byo-yomi with that many stones left.
  if (stones == 0) {
    clock.main_seconds = seconds;
  } else {
    clock.main_seconds = 0;
    clock.byoyomi_seconds = seconds;
    clock.byoyomi_stones = stones;
  }
  return "";
}

std::string GtpEngine::Play(const std::string& args) {
  const std::vector<std::string> words = Words(args);
  if (words.size() != 2) throw CommandError{"play takes a color and a move"};
  const Color color = ParseColor(words[0]);
  if (game_.over()) throw CommandError{"game is over (" + ResultText(game_) + ")"};
  if (color != game_.position().side_to_move())
    throw CommandError{std::string("it is ") + ColorName(game_.position().side_to_move()) + "'s turn"};
  game_.Play(ParseMove(words[1], game_.position()));
  return "";
}

std::string GtpEngine::Genmove(const std::string& args) {
  const std::vector<std::string> words = Words(args);
  if (words.size() != 1) throw CommandError{"genmove takes a color"};
  const Color color = ParseColor(words[0]);
  if (game_.over()) throw CommandError{"game is over (" + ResultText(game_) + ")"};
  if (color != game_.position().side_to_move())
    throw CommandError{std::string("it is ") + ColorName(game_.position().side_to_move()) + "'s turn"};
  const Move move = player_->ChooseMove(game_, clocks_[color]);
  if (!game_.position().IsLegal(move)) throw CommandError{"player " + player_->name() + " chose an illegal move"};
  game_.Play(move);
  if (log_) *log_ << player_->name() << ": " << FormatMove(move) << " " << player_->LastMoveInfo() << std::endl;
  return FormatMove(move);
}

std::string GtpEngine::SetRules(const std::string& args) {
  Rules rules = Rules::FromString(args);
  // The board's size stays unless named (boardsize sets it too).
  if (args.find("size=") == std::string::npos) rules.size = game_.rules().size;
  if (args.find("start=") == std::string::npos && args.find("size=") == std::string::npos) {
    // Keep the game: replay its moves under the new options.
    rules.start = game_.rules().start;
    Game replayed(rules, game_.start());
    for (Move m : game_.moves()) {
      if (replayed.over()) throw CommandError{"the game would have ended before its last move under these rules"};
      replayed.Play(m);
    }
    game_ = replayed;
    return "";
  }
  NewGame(rules, rules.StartPosition());
  return "";
}

std::string GtpEngine::Solve(const std::vector<std::string>& words) const {
  if (words.size() > 1) throw CommandError{"loa_solve takes at most the seconds to try"};
  solve::SolveLimits limits;
  limits.seconds = words.empty() ? 10 : ParseInt(words[0], "seconds", 1);
  limits.nodes = solve_nodes_;
  solve::Solver solver(solve_memory_mb_);
  const solve::SolveResult r = solver.Solve(game_, limits);
  std::string reply = solve::OutcomeName(r.outcome);
  if (!r.best_move.is_null()) reply += " " + FormatMove(r.best_move);
  if (r.outcome == solve::Outcome::kWin || r.outcome == solve::Outcome::kLoss) {
    reply += " (proof of at most " + std::to_string(r.proof_plies) + " plies:";
    for (Move m : r.line) reply += " " + FormatMove(m);
    reply += ")";
  }
  return reply;
}

std::string GtpEngine::LoadGame(const std::string& args) {
  if (args.empty()) throw CommandError{"loa_loadgame takes a file name"};
  const Record record = ParseRecord(ReadFile(args, kMaxTextBytes), args);
  Game game = ReplayRecord(record, record.rules, args);
  player_->NewGame();
  game_ = game;
  return "";
}

std::string GtpEngine::ShowBoard() const {
  std::string text = "\n" + game_.position().Diagram();
  text += game_.over() ? "game over: " + ResultText(game_)
                       : std::string(ColorName(game_.position().side_to_move())) + " to move";
  return text;
}

void GtpEngine::NewGame(const Rules& rules, const Position& start) {
  if (!player_->PlaysBoardSize(rules.size))
    throw CommandError{"unacceptable size: " + player_->name() + " does not play " + std::to_string(rules.size) + "x" +
                       std::to_string(rules.size) + " (a net plays the board it was trained on)"};
  game_ = Game(rules, start);
  player_->NewGame();
}

}  // namespace loa
