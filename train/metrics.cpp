#include "train/metrics.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.h"

namespace loa::train {

MetricsLog::MetricsLog(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw IoError(path + ": cannot open for appending: " + std::strerror(errno));
  char last = '\n';
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  if (size > 0 && ::pread(fd_, &last, 1, size - 1) == 1 && last != '\n') [[maybe_unused]]
    const ssize_t ignored = ::write(fd_, "\n", 1);
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

std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  uint64_t next = 0;
  return ReadJsonLines(path, 0, &next);
}

std::vector<nlohmann::json> ReadJsonLines(const std::string& path, uint64_t offset, uint64_t* next, bool* reset) {
  std::vector<nlohmann::json> objects;
  std::ifstream in(path, std::ios::binary);
  if (reset) *reset = false;
  *next = offset;
  if (!in) return objects;
  in.seekg(0, std::ios::end);
  const uint64_t size = uint64_t(in.tellg());
  if (offset > size) {
    offset = 0;
    if (reset) *reset = true;
  }
  in.seekg(std::streamoff(offset));
  std::string text(size - offset, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  size_t begin = 0;
  for (size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1) {
    nlohmann::json j =
        nlohmann::json::parse(text.begin() + std::ptrdiff_t(begin), text.begin() + std::ptrdiff_t(end), nullptr, false);
    if (!j.is_discarded() && j.is_object()) objects.push_back(std::move(j));
  }
  *next = offset + begin;
  return objects;
}

}  // namespace loa::train
