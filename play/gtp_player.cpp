// gtp:cmd=COMMAND: an external engine that speaks the text protocol of
// `loaz gtp`, run as a child process with pipes on its standard input and
// output (its standard error is ours).

#include <algorithm>
#include <cctype>
#include <chrono>
#include <vector>

#include "core/error.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "play/engine_process.h"
#include "play/player_kinds.h"

namespace loa {
namespace {

// The longest reply read from an engine; a longer one is an error.
constexpr size_t kMaxReplyBytes = 1 << 20;
// Seconds an engine gets beyond its clock for a timed genmove.
constexpr double kClockGraceSeconds = 5;

// Sends one command and returns the text of its `=` reply. Throws Error
// naming the engine and the command on a `?` reply, a closed pipe or an
// oversized reply, and PlayerTimeout when no whole reply comes within
// `seconds`; each failure but a `?` reply kills the engine.
std::string GtpSend(EngineProcess& engine, const std::string& command, double seconds) {
  const auto deadline = EngineProcess::Deadline(seconds);
  engine.WriteLine(command);
  std::string first;
  do first = engine.ReadLine(command, deadline, seconds);
  while (first.empty());
  if (first[0] != '=' && first[0] != '?')
    engine.Fail("reply to '" + command + "' does not start with '=' or '?': " + Excerpt(first));
  std::string text = first.substr(1);
  while (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) text.erase(0, 1);  // the id
  if (!text.empty() && text[0] == ' ') text.erase(0, 1);
  for (std::string more = engine.ReadLine(command, deadline, seconds); !more.empty();
       more = engine.ReadLine(command, deadline, seconds)) {
    text += "\n" + more;
    if (text.size() > kMaxReplyBytes)
      engine.Fail("reply to '" + command + "' longer than " + std::to_string(kMaxReplyBytes) + " bytes");
  }
  if (first[0] == '?')
    throw Error("engine '" + Excerpt(engine.name()) + "': '" + command + "' failed: " + Excerpt(text));
  return text;
}

class GtpPlayer : public Player {
 public:
  GtpPlayer(std::string name, std::string command, double timeout)
      : name_(std::move(name)), command_(std::move(command)), timeout_(timeout) {
    Restart();
  }
  std::string name() const override { return name_; }
  bool PlaysBoardSize(int) const override { return true; }  // the engine says, by its answers
  void NewGame() override {
    synced_ = false;
    if (engine_->dead()) Restart();  // after a timeout in the last game
  }
  Move ChooseMove(const Game& game, const Clock& clock) override;

 private:
  void Sync(const Game& game);
  void Restart() { engine_ = std::make_unique<EngineProcess>(command_, command_); }
  std::string Send(const std::string& command) { return GtpSend(*engine_, command, timeout_); }

  std::string name_, command_;
  double timeout_;  // seconds per reply, but for a timed genmove
  std::unique_ptr<EngineProcess> engine_;
  bool synced_ = false;
  Position start_;
  Rules rules_;
  std::vector<Move> sent_;  // the moves the engine has, from start_
};

void GtpPlayer::Sync(const Game& game) {
  const std::vector<Move>& moves = game.moves();
  const bool prefix = sent_.size() <= moves.size() && std::equal(sent_.begin(), sent_.end(), moves.begin());
  if (!synced_ || !prefix || start_ != game.start() || !(rules_ == game.rules())) {
    const Rules& r = game.rules();
    Send(std::string("loa_rules simultaneous=") + SimultaneousName(r.simultaneous) + " start=" + StartName(r.start));
    Send("loa_position " + game.start().ToString());
    start_ = game.start();
    rules_ = r;
    sent_.clear();
    synced_ = true;
  }
  Position pos = game.start();
  for (size_t i = 0; i < moves.size(); ++i) {
    if (i >= sent_.size()) {
      Send(std::string("play ") + (pos.side_to_move() == kBlack ? "b " : "w ") + FormatMove(moves[i]));
      sent_.push_back(moves[i]);
    }
    pos = pos.Apply(moves[i]);
  }
}

Move GtpPlayer::ChooseMove(const Game& game, const Clock& clock) {
  Sync(game);
  const char* color = game.position().side_to_move() == kBlack ? "b" : "w";
  if (clock.timed()) {
    const bool byoyomi = clock.main_seconds <= 0;
    Send(std::string("time_left ") + color + " " +
         std::to_string(int(byoyomi ? clock.byoyomi_seconds : clock.main_seconds)) + " " +
         std::to_string(byoyomi ? clock.byoyomi_stones : 0));
  }
  // A timed engine gets its clock and a grace; an untimed one the timeout.
  const double seconds =
      clock.timed()
          ? std::max(clock.main_seconds > 0 ? clock.main_seconds : clock.byoyomi_seconds, 0.0) + kClockGraceSeconds
          : timeout_;
  const std::string reply = GtpSend(*engine_, std::string("genmove ") + color, seconds);
  Move move;
  try {
    move = ParseMove(reply, game.position());
  } catch (const ParseError& e) {
    throw Error("engine '" + Excerpt(name_) + "' answered genmove with '" + Excerpt(reply, 40) + "': " + e.what());
  }
  sent_.push_back(move);
  return move;
}

}  // namespace

namespace {

// The keys of `gtp:`.
struct GtpKeys {
  std::string command;
  double timeout = kDefaultEngineTimeout;
  void Visit(ParamVisitor& v) {
    v.Double("timeout", timeout, 0.01, 1e6,
             "seconds the engine may take to answer a command; a timed genmove gets its clock plus 5 s");
    v.String("cmd", command, false,
             "the engine's command line, run with /bin/sh -c (comes last: it runs to the end; required)");
  }
};

}  // namespace

std::vector<ParamInfo> GtpPlayerKeys() { return ListKeys<GtpKeys>(); }

void CheckGtpSpec(const PlayerSpec& spec) { ReadEngineKeys<GtpKeys>(spec, "gtp"); }

std::unique_ptr<Player> MakeGtpPlayer(const PlayerSpec& spec) {
  const GtpKeys keys = ReadEngineKeys<GtpKeys>(spec, "gtp");
  return std::make_unique<GtpPlayer>(spec.text(), keys.command, keys.timeout);
}

}  // namespace loa
