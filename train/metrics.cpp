#include "train/metrics.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.h"

namespace loa::train {

MetricsLog::MetricsLog(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw IoError(path + ": cannot open for appending: " + std::strerror(errno));
}

MetricsLog::~MetricsLog() {
  if (fd_ >= 0) ::close(fd_);
}

void MetricsLog::Write(nlohmann::json event) {
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  event["time"] = now;
  // Non-finite numbers have no JSON form; dump() writes them as null.
  const std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // O_APPEND makes the one write land whole at the end, even with other writers.
  const ssize_t written = ::write(fd_, line.data(), line.size());
  if (written != ssize_t(line.size())) throw IoError(path_ + ": write failed: " + std::strerror(errno));
}

}  // namespace loa::train
