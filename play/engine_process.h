#pragma once
// An external engine: a child process started with /bin/sh -c COMMAND in a
// process group of its own, and the pipes to its standard input and output
// (its standard error is ours). The players that speak to other programs
// (gtp:, uci:) and the protocol tests talk through it a line at a time.

#include <sys/types.h>

#include <chrono>
#include <string>

namespace loa {

class EngineProcess {
 public:
  using SteadyClock = std::chrono::steady_clock;

  // Starts the engine; throws Error naming it when it cannot.
  EngineProcess(const std::string& name, const std::string& command);
  // Sends `quit`, waits a second for the engine to go, then kills its group.
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  // Sends one line. Throws Error naming the engine when the pipe is closed
  // (and kills it).
  void WriteLine(const std::string& line);

  // Returns the next line the engine writes, without its end. Throws Error
  // when the engine closes its output or writes a line over 1 MiB, and
  // PlayerTimeout when none comes before `deadline` (`seconds` names the
  // wait in the message); each kills the engine. `command` is what the
  // line answers, for the messages.
  std::string ReadLine(const std::string& command, SteadyClock::time_point deadline, double seconds);
  // The same with a deadline `seconds` from now.
  std::string ReadLine(const std::string& command, double seconds) {
    return ReadLine(command, Deadline(seconds), seconds);
  }
  // The time point `seconds` from now.
  static SteadyClock::time_point Deadline(double seconds);

  // Returns whether the engine was killed or closed its pipes.
  bool dead() const { return dead_; }
  const std::string& name() const { return name_; }

  // Kills the engine and throws Error naming it and `why`.
  [[noreturn]] void Fail(const std::string& why);

 private:
  // Kills the engine's process group and reaps it.
  void Kill();

  std::string name_;
  pid_t pid_ = -1;
  int to_engine_ = -1, from_engine_ = -1;
  std::string buffer_;
  bool dead_ = false;
};

}  // namespace loa
