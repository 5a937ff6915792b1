#pragma once
// The run's logger: levelled lines to the terminal (standard error) and to
// the run's log.txt, and a live progress line that is redrawn in place on a
// terminal. Thread-safe.

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace loa::run {

enum class LogLevel { kInfo, kWarning, kError };

class Logger {
 public:
  // Logs to standard error at `terminal_level` and above, and to `path`
  // (appended; no file when empty) at every level. Throws
  // IoError when the file cannot be opened.
  explicit Logger(const std::string& path = "", LogLevel terminal_level = LogLevel::kInfo);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  // Writes one line stamped with the time and level.
  void Log(LogLevel level, const std::string& message);
  void Info(const std::string& message) { Log(LogLevel::kInfo, message); }
  void Warn(const std::string& message) { Log(LogLevel::kWarning, message); }
  void Error(const std::string& message) { Log(LogLevel::kError, message); }

  // Shows `line` as the live status: redrawn in place on a terminal; on a
  // pipe or file, printed as a line at most every kProgressPeriod.
  void Progress(const std::string& line);

 private:
  void ClearProgress();

  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  LogLevel terminal_level_;
  bool tty_;
  bool progress_shown_ = false;
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace loa::run
