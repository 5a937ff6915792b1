#include "play/engine_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "play/player.h"

extern char** environ;

namespace loa {
namespace {

// The longest line read from an engine; a longer one is an error.
constexpr size_t kMaxLineBytes = 1 << 20;
// Seconds an engine gets to quit before it is killed.
constexpr double kQuitSeconds = 1;

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

}  // namespace

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
    if (buffer_.size() > kMaxLineBytes)
      Fail("reply to '" + command + "' longer than " + std::to_string(kMaxLineBytes) + " bytes");
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

EngineProcess::SteadyClock::time_point EngineProcess::Deadline(double seconds) {
  return SteadyClock::now() +
         std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(std::min(seconds, 1e7)));
}

void EngineProcess::WriteLine(const std::string& command) {
  if (dead_) Fail("was killed after an earlier failure");
  const std::string line = command + "\n";
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = write(to_engine_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("cannot send '" + command + "': " + strerror(errno));
    done += size_t(n);
  }
}

}  // namespace loa
