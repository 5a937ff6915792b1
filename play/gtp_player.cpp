// gtp:cmd=COMMAND: an external engine that speaks the text protocol of
// `loaz gtp`, run as a child process with pipes on its standard input and
// output (its standard error is ours).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "play/player_kinds.h"

extern char** environ;

namespace loa {
namespace {

// The longest reply read from an engine; a longer one is an error.
constexpr size_t kMaxReplyBytes = 1 << 20;
// Seconds an engine gets beyond its clock for a timed genmove.
constexpr double kClockGraceSeconds = 5;
// Seconds an engine gets to quit before it is killed.
constexpr double kQuitSeconds = 1;

using SteadyClock = std::chrono::steady_clock;

// The process groups of the engines now running, so that a signal that
// ends this process ends them too (they are in groups of their own, so the
// terminal's Ctrl-C does not reach them).
constexpr int kMaxEngines = 1024;
std::atomic<pid_t> g_engine_groups[kMaxEngines];
struct sigaction g_previous_int, g_previous_term;

void KillEnginesOnSignal(int signal_number) {
  for (std::atomic<pid_t>& group : g_engine_groups) {
    const pid_t pid = group.load();
    if (pid > 0) ::kill(-pid, SIGKILL);
  }
  const struct sigaction& previous = signal_number == SIGINT ? g_previous_int : g_previous_term;
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    // Die of the signal as if no handler had been installed.
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
  } else if (previous.sa_handler) {
    previous.sa_handler(signal_number);  // e.g. a training run's clean stop
  }
}

// Installs KillEnginesOnSignal once, in front of whatever handled SIGINT and
// SIGTERM before.
void InstallEngineSignalHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_handler = KillEnginesOnSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &g_previous_int);
    sigaction(SIGTERM, &action, &g_previous_term);
  });
}

void RegisterGroup(pid_t pid) {
  for (std::atomic<pid_t>& group : g_engine_groups) {
    pid_t empty = 0;
    if (group.compare_exchange_strong(empty, pid)) return;
  }
}

void UnregisterGroup(pid_t pid) {
  for (std::atomic<pid_t>& group : g_engine_groups) {
    pid_t expected = pid;
    if (group.compare_exchange_strong(expected, 0)) return;
  }
}

// A child process in a process group of its own, and the two pipes to it.
class EngineProcess {
 public:
  EngineProcess(const std::string& name, const std::string& command);
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  // Sends one command and returns the text of its `=` reply. Throws Error
  // naming the engine and the command on a `?` reply, a closed pipe or an
  // oversized reply, and PlayerTimeout when no whole reply comes within
  // `seconds`; each failure but a `?` reply kills the engine.
  std::string Send(const std::string& command, double seconds);

  // Returns whether the engine was killed or closed its pipes.
  bool dead() const { return dead_; }

 private:
  std::string ReadLine(const std::string& command, SteadyClock::time_point deadline, double seconds);
  // Kills the engine's process group and reaps it.
  void Kill();
  [[noreturn]] void Fail(const std::string& why);

  std::string name_;
  pid_t pid_ = -1;
  int to_engine_ = -1, from_engine_ = -1;
  std::string buffer_;
  bool dead_ = false;
};

EngineProcess::EngineProcess(const std::string& name, const std::string& command) : name_(name) {
  // A dead engine must give an error on write, not kill this process.
  signal(SIGPIPE, SIG_IGN);
  InstallEngineSignalHandlers();
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    Fail(std::string("cannot make pipes: ") + strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, led by the child
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  const int status = posix_spawn(&pid_, "/bin/sh", &actions, &attributes, const_cast<char**>(argv), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  to_engine_ = in[1];
  from_engine_ = out[0];
  if (status != 0) {
    pid_ = -1;
    Fail(std::string("cannot start: ") + strerror(status));
  }
  RegisterGroup(pid_);
}

EngineProcess::~EngineProcess() {
  if (pid_ > 0 && !dead_) {
    const char quit[] = "quit\n";
    [[maybe_unused]] ssize_t ignored = write(to_engine_, quit, sizeof(quit) - 1);
    close(to_engine_);
    to_engine_ = -1;
    // A polite engine quits at once; one that does not is killed.
    const auto deadline = SteadyClock::now() + std::chrono::duration<double>(kQuitSeconds);
    while (waitpid(pid_, nullptr, WNOHANG) == 0) {
      if (SteadyClock::now() >= deadline) {
        Kill();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // The shell may have left children in the group.
    ::kill(-pid_, SIGKILL);
    UnregisterGroup(pid_);
  }
  if (to_engine_ >= 0) close(to_engine_);
  if (from_engine_ >= 0) close(from_engine_);
}

void EngineProcess::Kill() {
  if (pid_ <= 0 || dead_) return;
  dead_ = true;
  ::kill(-pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  UnregisterGroup(pid_);
}

void EngineProcess::Fail(const std::string& why) {
  Kill();
  throw Error("engine '" + Excerpt(name_) + "': " + why);
}

std::string EngineProcess::ReadLine(const std::string& command, SteadyClock::time_point deadline, double seconds) {
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (buffer_.size() > kMaxReplyBytes)
      Fail("reply to '" + command + "' longer than " + std::to_string(kMaxReplyBytes) + " bytes");
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
    struct pollfd ready = {from_engine_, POLLIN, 0};
    const int polled = left > 0 ? poll(&ready, 1, int(std::min<int64_t>(left, INT_MAX))) : 0;
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      Kill();
      char text[64];
      std::snprintf(text, sizeof text, "%g", seconds);
      throw PlayerTimeout("engine '" + Excerpt(name_) + "': no reply to '" + command + "' within " + text +
                          " s (timeout); killed it");
    }
    char chunk[4096];
    const ssize_t n = read(from_engine_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("closed its output");
    buffer_.append(chunk, size_t(n));
  }
}

std::string EngineProcess::Send(const std::string& command, double seconds) {
  if (dead_) Fail("was killed after an earlier failure");
  const auto deadline = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                                 std::chrono::duration<double>(std::min(seconds, 1e7)));
  const std::string line = command + "\n";
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = write(to_engine_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("cannot send '" + command + "': " + strerror(errno));
    done += size_t(n);
  }
  std::string first;
  do first = ReadLine(command, deadline, seconds);
  while (first.empty());
  if (first[0] != '=' && first[0] != '?')
    Fail("reply to '" + command + "' does not start with '=' or '?': " + Excerpt(first));
  std::string text = first.substr(1);
  while (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) text.erase(0, 1);  // the id
  if (!text.empty() && text[0] == ' ') text.erase(0, 1);
  for (std::string more = ReadLine(command, deadline, seconds); !more.empty();
       more = ReadLine(command, deadline, seconds)) {
    text += "\n" + more;
    if (text.size() > kMaxReplyBytes)
      Fail("reply to '" + command + "' longer than " + std::to_string(kMaxReplyBytes) + " bytes");
  }
  if (first[0] == '?') throw Error("engine '" + Excerpt(name_) + "': '" + command + "' failed: " + Excerpt(text));
  return text;
}

class GtpPlayer : public Player {
 public:
  GtpPlayer(std::string name, std::string command, double timeout)
      : name_(std::move(name)), command_(std::move(command)), timeout_(timeout) {
    Restart();
  }
  std::string name() const override { return name_; }
  void NewGame() override {
    synced_ = false;
    if (engine_->dead()) Restart();  // after a timeout in the last game
  }
  Move ChooseMove(const Game& game, const Clock& clock) override;

 private:
  void Sync(const Game& game);
  void Restart() { engine_ = std::make_unique<EngineProcess>(command_, command_); }
  std::string Send(const std::string& command) { return engine_->Send(command, timeout_); }

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
  const std::string reply = engine_->Send(std::string("genmove ") + color, seconds);
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

std::unique_ptr<Player> MakeGtpPlayer(const PlayerSpec& spec) {
  GtpKeys keys;
  spec.ReadExactly([&](ParamVisitor& v) { keys.Visit(v); });
  const std::string& command = keys.command;
  const double timeout = keys.timeout;
  if (command.empty()) throw ParseError("player '" + Excerpt(spec.text()) + "': gtp needs cmd=COMMAND");
  return std::make_unique<GtpPlayer>(spec.text(), command, timeout);
}

}  // namespace loa
