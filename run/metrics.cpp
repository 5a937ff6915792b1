#include "run/metrics.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace loa::run {

JsonLinesLog::JsonLinesLog(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw IoError(path + ": cannot open for appending: " + std::strerror(errno));
  char last = '\n';
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  if (size > 0 && ::pread(fd_, &last, 1, size - 1) == 1 && last != '\n') [[maybe_unused]]
    const ssize_t ignored = ::write(fd_, "\n", 1);
}

JsonLinesLog::~JsonLinesLog() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonLinesLog::Write(nlohmann::json event) {
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  event["time"] = now;
  // Non-finite numbers have no JSON form; dump() writes them as null.
  const std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // O_APPEND makes the one write land whole at the end, even with other writers.
  const ssize_t written = ::write(fd_, line.data(), line.size());
  if (written != ssize_t(line.size())) throw IoError(path_ + ": write failed: " + std::strerror(errno));
}

std::vector<nlohmann::json> ReadJsonLines(const std::string& path, int* skipped) {
  std::vector<nlohmann::json> objects;
  JsonLinesPiece piece;
  int skipped_here = 0;
  do {
    piece = ReadJsonLinesPiece(path, piece.next, piece.file, kJsonLinesChunkBytes);
    if (piece.reset) objects.clear(), skipped_here = 0;
    skipped_here += piece.skipped;
    for (nlohmann::json& j : piece.objects) objects.push_back(std::move(j));
  } while (piece.more);
  if (skipped) *skipped += skipped_here;
  return objects;
}

JsonLinesPiece ReadJsonLinesPiece(const std::string& path, uint64_t offset, const std::string& file,
                                  std::size_t max_bytes) {
  JsonLinesPiece piece;
  piece.next = offset;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return piece;
    throw IoError(path + ": cannot read: " + std::strerror(errno));
  }
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw IoError(path + ": not a regular file");
  }
  piece.size = uint64_t(info.st_size);
  piece.file = std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
  if ((!file.empty() && file != piece.file) || offset > piece.size) {
    offset = 0;
    piece.reset = true;
  }
  std::string text(std::min<uint64_t>(max_bytes, piece.size - offset), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + got, text.size() - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  ::close(fd);
  text.resize(got);
  size_t begin = 0;
  for (size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1) {
    nlohmann::json j =
        nlohmann::json::parse(text.begin() + std::ptrdiff_t(begin), text.begin() + std::ptrdiff_t(end), nullptr, false);
    if (!j.is_discarded() && j.is_object())
      piece.objects.push_back(std::move(j));
    else
      ++piece.skipped;
  }
  // A full piece without a newline is one line longer than a piece: skipped.
  if (begin == 0 && got == max_bytes && got > 0) begin = got;
  // The file's last bytes without a newline: a line cut short (a crash,
  // damage) unless it is being written; left for the next piece, counted.
  if (begin < got && offset + got == piece.size) ++piece.skipped;
  piece.next = offset + begin;
  piece.more = got == max_bytes && piece.next < piece.size;
  return piece;
}

}  // namespace loa::run
