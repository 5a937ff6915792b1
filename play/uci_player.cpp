// uci:cmd=COMMAND: an external engine that speaks UCI for the variant
// linesofaction, as cutechess drives one (docs/ENGINE.md, "Under cutechess-cli"),
// run as a child process with pipes on its standard input and output.

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/formats.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "play/engine_process.h"
#include "play/player_kinds.h"

namespace loa {
namespace {

// Seconds an engine gets beyond its clock for its bestmove.
constexpr double kGraceSeconds = 1;

std::string UciMove(Move m) { return m.is_pass() ? "0000" : FormatMoveUnmarked(m); }

int64_t Milliseconds(double seconds) { return int64_t(std::llround(std::max(seconds, 0.0) * 1000)); }

// The `go` command for a clock: both sides' time, their increments, the
// moves to the control; an untimed move gets `movetime`.
std::string GoCommand(const Clock& clock, Color us, double movetime) {
  if (!clock.timed()) return "go movetime " + std::to_string(Milliseconds(movetime));
  const double ours = clock.main_seconds, theirs = clock.opponent_seconds > 0 ? clock.opponent_seconds : ours;
  const int64_t inc = Milliseconds(clock.increment_seconds);
  std::string go = "go wtime " + std::to_string(Milliseconds(us == kWhite ? ours : theirs)) + " btime " +
                   std::to_string(Milliseconds(us == kBlack ? ours : theirs));
  if (inc > 0) go += " winc " + std::to_string(inc) + " binc " + std::to_string(inc);
  if (clock.moves_to_go > 0) go += " movestogo " + std::to_string(clock.moves_to_go);
  return go;
}

class UciPlayer : public Player {
 public:
  UciPlayer(std::string name, std::string command, double timeout, double movetime)
      : name_(std::move(name)), command_(std::move(command)), timeout_(timeout), movetime_(movetime) {
    Restart();
  }
  std::string name() const override { return name_; }
  void NewGame() override;
  bool PlaysBoardSize(int size) const override { return true; }  // the engine says, by its answers
  Move ChooseMove(const Game& game, const Clock& clock) override;
  std::string LastMoveInfo() const override { return last_info_; }

 private:
  void Restart();
  // Sends `command` and reads lines until one starts with `answer`, which it returns.
  std::string Await(const std::string& command, const std::string& answer,
                    EngineProcess::SteadyClock::time_point deadline, double seconds);

  std::string name_, command_;
  double timeout_, movetime_;
  std::unique_ptr<EngineProcess> engine_;
  std::string last_info_;
};

std::string UciPlayer::Await(const std::string& command, const std::string& answer,
                             EngineProcess::SteadyClock::time_point deadline, double seconds) {
  engine_->WriteLine(command);
  for (;;) {
    std::string line = engine_->ReadLine(command, deadline, seconds);
    if (line.rfind(answer, 0) == 0) return line;
    if (line.rfind("info ", 0) == 0 && line.find(" pv ") != std::string::npos) last_info_ = line;
    if (line.rfind("option name UCI_Variant ", 0) == 0 && line.find(" linesofaction") == std::string::npos)
      engine_->Fail("its UCI_Variant does not offer linesofaction: " + Excerpt(line, 80));
  }
}

void UciPlayer::Restart() {
  engine_ = std::make_unique<EngineProcess>(command_, command_);
  const auto deadline = EngineProcess::Deadline(timeout_);
  Await("uci", "uciok", deadline, timeout_);
  engine_->WriteLine("setoption name UCI_Variant value linesofaction");
  Await("isready", "readyok", deadline, timeout_);
}

void UciPlayer::NewGame() {
  if (engine_->dead()) Restart();  // after a timeout in the last game
  engine_->WriteLine("ucinewgame");
  Await("isready", "readyok", EngineProcess::Deadline(timeout_), timeout_);
}

Move UciPlayer::ChooseMove(const Game& game, const Clock& clock) {
  const bool standard = game.start() == Position::Start() && game.start().size() == kBoardSize;
  std::string position =
      standard ? "position startpos" : "position fen " + FormatPosition(game.start(), PositionFormat::kCutechess);
  if (!game.moves().empty()) position += " moves";
  for (Move m : game.moves()) position += " " + UciMove(m);
  engine_->WriteLine(position);
  const double seconds = (clock.timed() ? clock.main_seconds : movetime_) + kGraceSeconds;
  const std::string go = GoCommand(clock, game.position().side_to_move(), movetime_);
  const std::string reply = Await(go, "bestmove", EngineProcess::Deadline(seconds), seconds);
  std::string text = reply.substr(std::min<size_t>(reply.size(), 9));
  text = text.substr(0, text.find(' '));  // drop a `ponder MOVE`
  try {
    return ParseMove(text == "0000" ? "pass" : text, game.position());
  } catch (const ParseError& e) {
    throw Error("engine '" + Excerpt(name_) + "' answered " + go + " with '" + Excerpt(reply, 40) + "': " + e.what());
  }
}

// The keys of `uci:`.
struct UciKeys {
  std::string command;
  double timeout = kDefaultEngineTimeout;
  double movetime = 1;
  void Visit(ParamVisitor& v) {
    v.Double("timeout", timeout, 0.01, 1e6, "seconds the engine may take to answer uci, isready and ucinewgame");
    v.Double("movetime", movetime, 0.001, 1e6,
             "seconds a move of an untimed game (go movetime); a timed game sends "
             "the clock");
    v.String("cmd", command, false,
             "the engine's command line, run with /bin/sh -c (comes last: it runs to the end; required)");
  }
};

}  // namespace

std::vector<ParamInfo> UciPlayerKeys() { return ListKeys<UciKeys>(); }

void CheckUciSpec(const PlayerSpec& spec) { ReadEngineKeys<UciKeys>(spec, "uci"); }

std::unique_ptr<Player> MakeUciPlayer(const PlayerSpec& spec) {
  const UciKeys keys = ReadEngineKeys<UciKeys>(spec, "uci");
  return std::make_unique<UciPlayer>(spec.text(), keys.command, keys.timeout, keys.movetime);
}

}  // namespace loa
