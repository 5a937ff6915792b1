#include "run/logger.h"

#include <cerrno>
#include <cstring>
#include <ctime>

#include <unistd.h>

#include "core/error.h"

namespace loa::run {
namespace {

// On a pipe or file, the progress line is printed at most this often.
constexpr std::chrono::seconds kProgressPeriod{30};

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

std::string TimeStamp() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

}  // namespace

Logger::Logger(const std::string& path, LogLevel terminal_level)
    : terminal_level_(terminal_level), tty_(::isatty(STDERR_FILENO) == 1) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw IoError(path + ": cannot open the log: " + std::strerror(errno));
}

Logger::~Logger() {
  std::lock_guard<std::mutex> lock(mutex_);
  ClearProgress();
  if (file_) std::fclose(file_);
}

void Logger::ClearProgress() {
  if (!progress_shown_) return;
  std::fputs("\r\033[K", stderr);
  progress_shown_ = false;
}

void Logger::Log(LogLevel level, const std::string& message) {
  const std::string line = TimeStamp() + " " + LevelName(level) + ": " + message + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  if (level >= terminal_level_) {
    ClearProgress();
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }
  if (file_) {
    std::fputs(line.c_str(), file_);
    std::fflush(file_);
  }
}

void Logger::Progress(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    progress_shown_ = true;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_progress_ < kProgressPeriod) return;
  last_progress_ = now;
  std::fprintf(stderr, "%s progress: %s\n", TimeStamp().c_str(), line.c_str());
  std::fflush(stderr);
}

}  // namespace loa::run
