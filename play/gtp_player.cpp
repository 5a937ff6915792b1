// gtp:cmd=COMMAND: an external engine that speaks the text protocol of
// `loaz gtp`, run as a child process with pipes on its standard input and
// output (its standard error is ours).

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/notation.h"
#include "play/players.h"

extern char** environ;

namespace loa {
namespace {

// A child process and the two pipes to it.
class EngineProcess {
 public:
  explicit EngineProcess(const std::string& command);
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  // Sends one command and returns the text of its `=` reply; throws Error
  // naming the engine and the command on a `?` reply or a closed pipe.
  std::string Send(const std::string& command);

 private:
  std::string ReadLine();
  [[noreturn]] void Fail(const std::string& why) const;

  std::string command_;
  pid_t pid_ = -1;
  int to_engine_ = -1, from_engine_ = -1;
  std::string buffer_;
};

EngineProcess::EngineProcess(const std::string& command) : command_(command) {
  // A dead engine must give an error on write, not kill this process.
  signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    Fail(std::string("cannot make pipes: ") + strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  const int status = posix_spawn(&pid_, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  to_engine_ = in[1];
  from_engine_ = out[0];
  if (status != 0) Fail(std::string("cannot start: ") + strerror(status));
}

EngineProcess::~EngineProcess() {
  if (to_engine_ >= 0) {
    const char quit[] = "quit\n";
    [[maybe_unused]] ssize_t ignored = write(to_engine_, quit, sizeof(quit) - 1);
    close(to_engine_);
  }
  if (from_engine_ >= 0) close(from_engine_);
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

void EngineProcess::Fail(const std::string& why) const { throw Error("engine '" + command_ + "': " + why); }

std::string EngineProcess::ReadLine() {
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    char chunk[4096];
    const ssize_t n = read(from_engine_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("closed its output");
    buffer_.append(chunk, size_t(n));
  }
}

std::string EngineProcess::Send(const std::string& command) {
  const std::string line = command + "\n";
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = write(to_engine_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("cannot send '" + command + "': " + strerror(errno));
    done += size_t(n);
  }
  std::string first;
  do first = ReadLine();
  while (first.empty());
  if (first[0] != '=' && first[0] != '?') Fail("reply to '" + command + "' does not start with '=' or '?': " + first);
  std::string text = first.substr(1);
  while (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) text.erase(0, 1);  // the id
  if (!text.empty() && text[0] == ' ') text.erase(0, 1);
  for (std::string more = ReadLine(); !more.empty(); more = ReadLine()) text += "\n" + more;
  if (first[0] == '?') Fail("'" + command + "' failed: " + text);
  return text;
}

class GtpPlayer : public Player {
 public:
  GtpPlayer(std::string name, std::string command) : name_(std::move(name)), engine_(command) {}
  std::string name() const override { return name_; }
  void NewGame() override { synced_ = false; }
  Move ChooseMove(const Game& game, const Clock& clock) override;

 private:
  void Sync(const Game& game);

  std::string name_;
  EngineProcess engine_;
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
    engine_.Send(std::string("loa_rules simultaneous=") + (r.simultaneous == Simultaneous::kDraw ? "draw" : "mover") +
                 " start=" + (r.start == StartKind::kStandard ? "standard" : "scrambled"));
    engine_.Send("loa_position " + game.start().ToString());
    start_ = game.start();
    rules_ = r;
    sent_.clear();
    synced_ = true;
  }
  Position pos = game.start();
  for (size_t i = 0; i < moves.size(); ++i) {
    if (i >= sent_.size()) {
      engine_.Send(std::string("play ") + (pos.side_to_move() == kBlack ? "b " : "w ") + FormatMove(moves[i]));
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
    engine_.Send(std::string("time_left ") + color + " " +
                 std::to_string(int(byoyomi ? clock.byoyomi_seconds : clock.main_seconds)) + " " +
                 std::to_string(byoyomi ? clock.byoyomi_stones : 0));
  }
  const std::string reply = engine_.Send(std::string("genmove ") + color);
  Move move;
  try {
    move = ParseMove(reply, game.position());
  } catch (const ParseError& e) {
    throw Error("engine '" + name_ + "' answered genmove with '" + reply + "': " + e.what());
  }
  sent_.push_back(move);
  return move;
}

}  // namespace

std::unique_ptr<Player> MakeGtpPlayer(const PlayerSpec& spec) {
  spec.CheckKeys({"cmd"});
  const std::string command = spec.GetString("cmd", "");
  if (command.empty()) throw ParseError("player '" + spec.text() + "': gtp needs cmd=COMMAND");
  return std::make_unique<GtpPlayer>(spec.text(), command);
}

}  // namespace loa
