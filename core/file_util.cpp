#include "core/file_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.h"

namespace loa {
namespace {

constexpr char kTempMark[] = ".tmp.";

[[noreturn]] void FailErrno(const std::string& path, const char* what) {
  throw IoError(path + ": " + what + ": " + std::strerror(errno));
}

// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void CheckRegularFile(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) FailErrno(path, "cannot open");
  if (S_ISDIR(info.st_mode)) throw IoError(path + ": is a folder, not a file");
  if (!S_ISREG(info.st_mode)) throw IoError(path + ": not a regular file");
}

std::string ReadFile(const std::string& path, int64_t max_bytes) {
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) FailErrno(path, "cannot open");
  struct stat info;
  if (::fstat(file.fd, &info) != 0) FailErrno(path, "cannot read");
  if (S_ISDIR(info.st_mode)) throw IoError(path + ": is a folder, not a file");
  if (!S_ISREG(info.st_mode)) throw IoError(path + ": not a regular file");
  auto too_big = [&] {
    return IoError(path + ": larger than " + std::to_string(max_bytes) + " bytes, the most this reads");
  };
  if (info.st_size > max_bytes) throw too_big();
  std::string contents;
  contents.resize(size_t(info.st_size));
  size_t done = 0;
  for (;;) {
    if (done == contents.size()) {
      // The file may have grown since fstat: read on, within the bound.
      if (int64_t(contents.size()) >= max_bytes) {
        char probe;
        const ssize_t n = ::read(file.fd, &probe, 1);
        if (n > 0) throw too_big();
        if (n < 0 && errno != EINTR) FailErrno(path, "read failed");
        if (n == 0) break;
        continue;
      }
      contents.resize(std::min<size_t>(size_t(max_bytes), contents.size() + 65536));
    }
    const ssize_t n = ::read(file.fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) FailErrno(path, "read failed");
    if (n == 0) break;
    done += size_t(n);
  }
  contents.resize(done);
  return contents;
}

void WriteFileAtomic(const std::string& path, const std::string& contents, Existing existing) {
  const std::string temp = path + kTempMark + std::to_string(::getpid());
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) FailErrno(path, "cannot write");
  const bool written = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  bool renamed = false;
  if (written && flushed && closed) {
    if (existing == Existing::kReplace) {
      renamed = std::rename(temp.c_str(), path.c_str()) == 0;
    } else {
      // link() fails when path exists, so that nothing is ever replaced.
      renamed = ::link(temp.c_str(), path.c_str()) == 0;
      if (renamed) ::unlink(temp.c_str());
    }
  }
  if (!renamed) {
    const int error = errno;
    std::remove(temp.c_str());
    if (error == EEXIST) throw IoError(path + ": exists already, and this write never replaces it");
    throw IoError(path + ": write failed: " + std::strerror(error));
  }
}

int64_t TempFileOwner(const std::string& name) {
  const size_t mark = name.rfind(kTempMark);
  if (mark == std::string::npos || mark == 0) return -1;
  const std::string digits = name.substr(mark + std::strlen(kTempMark));
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

int RemoveStaleTempFiles(const std::string& dir) {
  int removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const int64_t owner = TempFileOwner(it->path().filename().string());
    if (owner < 0) continue;
    // A live process (this one included) may still be writing it.
    if (::kill(pid_t(owner), 0) == 0 || errno == EPERM) continue;
    std::error_code ignored;
    if (std::filesystem::remove(it->path(), ignored)) ++removed;
  }
  return removed;
}

}  // namespace loa
