#include "play/xboard_engine.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <istream>
#include <ostream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/formats.h"
#include "core/notation.h"

namespace loa {
namespace {

constexpr const char* kVariant = "linesofaction";
// XBoard's -pieceToCharTable for the game: P and p are its Man (the 11th
// piece of each side), every other piece absent.
constexpr const char* kSetupPieces = "..........P.....................p...........";
// xboard's score of a proven win in N moves (CECP 2: 100000 + N).
constexpr int kMateScore = 100000;

// Commands that leave a running search alone; every other one stops it
// and discards its move, as CECP asks, but `?`, which makes it move now.
const std::set<std::string>& PassiveCommands() {
  static const std::set<std::string> passive = {
      "xboard", "protover", "accepted", "rejected", "ping",   "time",   "otim",   "post", "nopost",
      "hard",   "easy",     "computer", "name",     "rating", "ics",    "random", "hint", "bk",
      "draw",   "level",    "st",       "sd",       "nps",    "memory", ".",      "exit"};
  return passive;
}

// xboard's null move stands for the pass.
std::string XboardMove(Move m) { return m.is_pass() ? "@@@@" : FormatMoveUnmarked(m); }

// Whether a bare word is meant as a move (FROMTO, FROM-TO, ..., or a pass).
bool LooksLikeMove(const std::string& w) {
  if (w == "@@@@" || w == "pass") return true;
  return (w.size() == 4 || w.size() == 5) && std::isalpha(static_cast<unsigned char>(w[0])) &&
         std::isdigit(static_cast<unsigned char>(w[1]));
}

// A number of `level`, `st`, `time`, ... that must read whole.
double Number(const std::string& command, const std::string& text) {
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value) || value < 0)
    throw Error("Error (bad number): " + command + " " + Excerpt(text, 20));
  return value;
}

// level's base time: minutes, or minutes:seconds.
double BaseSeconds(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return 60 * Number("level", text);
  return 60 * Number("level", text.substr(0, colon)) + Number("level", text.substr(colon + 1));
}

// A FEN with its colours swapped: the men's letters and the side to move.
std::string SwapColours(const std::string& fen) {
  std::string out = fen;
  const size_t board_end = std::min(out.find(' '), out.size());
  for (size_t i = 0; i < board_end; ++i) {
    const unsigned char ch = static_cast<unsigned char>(out[i]);
    out[i] = char(std::isupper(ch) ? std::tolower(ch) : std::toupper(ch));
  }
  if (board_end + 1 < out.size() && (out[board_end + 1] == 'w' || out[board_end + 1] == 'b'))
    out[board_end + 1] = out[board_end + 1] == 'w' ? 'b' : 'w';
  return out;
}

std::string Rest(const std::vector<std::string>& words, size_t from) {
  std::string text;
  for (size_t i = from; i < words.size(); ++i) text += (i > from ? " " : "") + words[i];
  return text;
}

}  // namespace

std::string XboardThinking(const MoveAnalysis& a) {
  if (!a.available) return "";
  int mate = 0;
  int score = ScoreCentipawns(a, &mate);
  if (mate != 0) score = mate > 0 ? kMateScore + mate : -kMateScore + mate;
  const int depth = a.depth > 0 ? a.depth : std::max<int>(1, int(a.pv.size()));
  std::ostringstream s;
  s << depth << " " << score << " " << int64_t(a.seconds * 100) << " " << a.nodes;
  for (Move m : a.pv) s << " " << XboardMove(m);
  return s.str();
}

XboardEngine::XboardEngine(std::string player_spec, bool white_first)
    : player_(std::move(player_spec)), white_first_(white_first) {}

XboardEngine::~XboardEngine() { StopSearch(true); }

void XboardEngine::Send(const std::string& line) {
  if (line.empty()) return;
  std::lock_guard<std::mutex> lock(out_mutex_);
  *out_ << line << '\n' << std::flush;
}

void XboardEngine::Run(std::istream& in, std::ostream& out) {
  out_ = &out;
  for (std::string line; !quit_ && std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream split(line);
    std::vector<std::string> words;
    for (std::string w; split >> w;) words.push_back(w);
    if (words.empty()) continue;
    if (words[0] == "?") {
      StopSearch(false);  // move now: the search's callback plays and sends it
      continue;
    }
    if (!PassiveCommands().count(words[0])) StopSearch(true);
    std::lock_guard<std::mutex> lock(state_mutex_);
    try {
      Handle(words);
    } catch (const Error& e) {
      Send(e.what());
    }
  }
  StopSearch(quit_);  // at the end of the input a search still answers; after quit, not
}

void XboardEngine::StopSearch(bool discard) {
  if (discard) {
    std::lock_guard<std::mutex> lock(state_mutex_);
    ++generation_;
  }
  search_.Stop();
  std::lock_guard<std::mutex> lock(state_mutex_);
  thinking_ = false;
  SendPendingPongs();  // of a search whose move was dropped
}

void XboardEngine::Handle(const std::vector<std::string>& words) {
  const std::string& command = words[0];
  const std::string arg = words.size() > 1 ? words[1] : "";
  if (command == "protover") {
    Send(std::string("feature myname=\"LOAZero\" variants=\"") + kVariant +
         "\" setboard=1 usermove=1 ping=1 playother=1 time=1 reuse=1 draw=0 sigint=0 sigterm=0 analyze=0 "
         "colors=0 name=0 nps=0 san=0 smp=1 option=\"Player -string " +
         player_.spec() + "\" option=\"Net -file \" done=1");
  } else if (command == "rejected") {
    if (arg == "usermove") usermove_ = false;
  } else if (command == "new") {
    NewGame();
  } else if (command == "variant") {
    if (arg != kVariant) throw Error("Error (unsupported variant): " + Excerpt(arg, 40));
    // For a GUI that does not know the game (XBoard): the board, its men as
    // XBoard's Man piece (no promotion), the start position.
    Send(std::string("setup (") + kSetupPieces + ") 8x8+0_fairy " +
         GuiFen(FormatPosition(Position::Start(), PositionFormat::kCutechess)));
  } else if (command == "force" || command == "result") {
    force_ = true;
    if (command == "result") result_sent_ = true;
  } else if (command == "go") {
    force_ = false;
    engine_side_ = game_.position().side_to_move();
    MaybeThink();
  } else if (command == "playother") {
    force_ = false;
    engine_side_ = Opponent(game_.position().side_to_move());
  } else if (command == "usermove") {
    UserMove(arg, true);
  } else if (command == "setboard") {
    SetBoard(Rest(words, 1));
  } else if (command == "level") {
    Level(words);
  } else if (command == "st") {
    fixed_seconds_ = Number("st", arg);
  } else if (command == "time" || command == "otim") {
    (command == "time" ? time_left_ : opponent_left_) = Number(command, arg) / 100;
  } else if (command == "post" || command == "nopost") {
    post_ = command == "post";
  } else if (command == "ping") {
    // CECP: a ping that comes while the engine is on move is answered after its move.
    if (thinking_)
      pending_pongs_.push_back(arg);
    else
      Send("pong " + arg);
  } else if (command == "undo" || command == "remove") {
    for (int i = command == "undo" ? 1 : 2; i > 0 && game_.Undo(); --i) {
    }
    result_sent_ = game_.over();
  } else if (command == "option") {
    SetOption(Rest(words, 1));
  } else if (command == "cores") {
    player_.SetThreads(int(std::clamp(Number("cores", arg), 1.0, 256.0)));
  } else if (command == "quit") {
    quit_ = true;
  } else if (PassiveCommands().count(command)) {
    // xboard, accepted, easy, hard, computer, name, ...: nothing to do.
  } else if (LooksLikeMove(command)) {
    UserMove(command, false);
  } else {
    throw Error("Error (unknown command): " + Excerpt(command, 40));
  }
}

void XboardEngine::NewGame() {
  game_ = Game();
  force_ = false;
  engine_side_ = Opponent(game_.position().side_to_move());
  result_sent_ = false;
  moved_since_setup_ = false;
  time_left_ = opponent_left_ = -1;
  moves_in_control_ = 0;
  player_.NewGame();
}

std::string XboardEngine::GuiFen(const std::string& fen) const { return white_first_ ? SwapColours(fen) : fen; }

void XboardEngine::SetBoard(const std::string& fen) {
  Position start;
  try {
    start = ReadPosition(GuiFen(fen));
  } catch (const Error& e) {
    throw Error(std::string("tellusererror Illegal position: ") + e.what());
  }
  Rules rules = game_.rules();
  rules.size = start.size();
  game_ = Game(rules, start);
  result_sent_ = false;
  moved_since_setup_ = false;
}

void XboardEngine::UserMove(const std::string& text, bool prefixed) {
  // cutechess sends a bare dummy move before `setboard` to put an engine on
  // Black's side: with usermove=1 a bare move is that; without, an illegal
  // one before any move of the game.
  const bool dummy = !prefixed && (usermove_ || (force_ && !moved_since_setup_));
  if (game_.over()) {
    if (dummy) return;
    throw Error("Illegal move (the game is over): " + Excerpt(text, 20));
  }
  Move move;
  try {
    move = ParseMove(text == "@@@@" ? "pass" : text, game_.position());
  } catch (const ParseError&) {
    if (dummy) return;
    throw Error("Illegal move: " + Excerpt(text, 20));
  }
  if (!prefixed && usermove_) return;  // a legal move sent bare is cutechess's dummy too
  game_.Play(move);
  moved_since_setup_ = true;
  SendResultIfOver();
  MaybeThink();
}

void XboardEngine::Level(const std::vector<std::string>& words) {
  if (words.size() != 4) throw Error("Error (expected level MOVES BASE INCREMENT): " + Excerpt(Rest(words, 0), 40));
  level_moves_ = int(Number("level", words[1]));
  level_base_ = BaseSeconds(words[2]);
  level_increment_ = Number("level", words[3]);
  fixed_seconds_ = 0;
}

void XboardEngine::SetOption(const std::string& assignment) {
  const size_t eq = assignment.find('=');
  const std::string name = assignment.substr(0, eq), value = eq == std::string::npos ? "" : assignment.substr(eq + 1);
  if (name == "Player") {
    player_.SetSpec(value);  // a spec that makes no player keeps the one before
  } else if (name == "Net") {
    player_.SetNet(value);
  } else {
    throw Error("Error (no such option): " + Excerpt(name, 40));
  }
}

void XboardEngine::MaybeThink() {
  if (!force_ && !game_.over() && game_.position().side_to_move() == engine_side_) Think();
}

void XboardEngine::Think() {
  Player& player = player_.Get();
  if (!player.PlaysBoardSize(game_.position().size()))
    throw Error("Error (" + player.name() + " does not play this board): go");
  MoveLimits limits;
  if (fixed_seconds_ > 0) {
    limits.movetime = fixed_seconds_;
  } else {
    limits.clock.main_seconds = time_left_ >= 0 ? std::max(time_left_, 0.001) : level_base_;
    limits.clock.increment_seconds = level_increment_;
    if (level_moves_ > 0) limits.clock.moves_to_go = level_moves_ - moves_in_control_ % level_moves_;
  }
  EngineSearch::Callbacks callbacks;
  callbacks.report = [this](const MoveAnalysis& a) {
    if (post_) Send(XboardThinking(a));
  };
  callbacks.note = [this](const std::string& note) { Send("# " + note); };
  const uint64_t generation = generation_;
  callbacks.done = [this, generation](Move move, const MoveAnalysis& a) {
    if (post_) Send(XboardThinking(a));
    Moved(move, generation);
  };
  thinking_ = true;
  search_.Start(player, game_, limits, callbacks);
}

void XboardEngine::Moved(Move move, uint64_t generation) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (generation != generation_ || move.is_null() || game_.over()) return;  // StopSearch answers the pings
  thinking_ = false;
  game_.Play(move);
  moved_since_setup_ = true;
  ++moves_in_control_;
  Send("move " + XboardMove(move));
  SendResultIfOver();
  SendPendingPongs();
}

void XboardEngine::SendPendingPongs() {
  for (const std::string& n : pending_pongs_) Send("pong " + n);
  pending_pongs_.clear();
}

void XboardEngine::SendResultIfOver() {
  if (!game_.over() || result_sent_) return;
  result_sent_ = true;
  const Result r = game_.result();
  // The side the GUI calls White: LOA's White, or with white_first its Black.
  const bool gui_white_won = r == (white_first_ ? Result::kBlackWins : Result::kWhiteWins);
  const char* score = r == Result::kDraw ? "1/2-1/2" : gui_white_won ? "1-0" : "0-1";
  Send(std::string(score) + " {" +
       (r == Result::kDraw ? "Draw"
        : gui_white_won    ? "White wins"
                           : "Black wins") +
       " by " + ReasonName(game_.reason()) + "}");
}

}  // namespace loa
