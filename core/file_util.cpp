#include "core/file_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

std::optional<std::string> ReadFileIfAny(const std::string& path, int64_t max_bytes) {
  try {
    return ReadFile(path, max_bytes);
  } catch (const IoError&) {
    return std::nullopt;
  }
}

std::optional<std::string> ReadFileUnlessDamaged(const std::string& path, std::string* damage, int64_t max_bytes) {
  std::error_code error;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, error))) return std::nullopt;
  try {
    return ReadFile(path, max_bytes);
  } catch (const IoError& e) {
    if (damage && std::filesystem::exists(path, error)) *damage = e.what();
    return std::nullopt;
  }
}

std::string SetAsideDamaged(const std::string& path) {
  std::error_code error;
  std::string target = path + ".damaged";
  for (int n = 2; std::filesystem::exists(std::filesystem::symlink_status(target, error)); ++n)
    target = path + ".damaged-" + std::to_string(n);
  std::filesystem::rename(path, target, error);
  if (error) throw IoError(path + ": cannot set it aside as " + target + ": " + error.message());
  return target;
}

std::string ThisExecutable() {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  return n > 0 ? std::string(self, std::size_t(n)) : std::string();
}

std::string InstalledFile(const std::string& relative, const std::string& built_in) {
  const std::string self = ThisExecutable();
  const std::size_t slash = self.rfind('/');
  if (slash == std::string::npos || slash == 0) return built_in;
  const std::string bin = self.substr(0, slash);  // the program's folder
  const std::size_t up = bin.rfind('/');
  if (up == std::string::npos) return built_in;
  const std::string candidate = bin.substr(0, up + 1) + relative;
  struct stat info;
  return ::stat(candidate.c_str(), &info) == 0 ? candidate : built_in;
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
  const std::string temp = TempFileName(path);
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

std::string ThisHost() {
  std::string host;
  if (const char* given = std::getenv("LOAZ_HOST"); given && *given) {
    host = given;
  } else {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) host = name;
  }
  if (host.empty()) host = "host";
  host.resize(std::min<size_t>(host.size(), 64));
  for (char& c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '-';
  return host;
}

std::string TempFileName(const std::string& path) {
  // The sequence number tells apart two writes of one path in one process.
  static std::atomic<uint64_t> sequence{0};
  return path + kTempMark + ThisHost() + "." + std::to_string(::getpid()) + "." + std::to_string(sequence.fetch_add(1));
}

std::optional<TempFileWriter> TempFileOwner(const std::string& name) {
  const size_t mark = name.rfind(kTempMark);
  if (mark == std::string::npos || mark == 0) return std::nullopt;
  const std::string tail = name.substr(mark + std::strlen(kTempMark));
  auto is_number = [](const std::string& digits) {
    return !digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string::npos;
  };
  if (is_number(tail)) return TempFileWriter{"", std::stoll(tail)};  // NAME.tmp.PID
  // HOST.PID.SEQ: the host holds no dot (ThisHost).
  const size_t first = tail.find('.'), second = first == std::string::npos ? first : tail.find('.', first + 1);
  if (first == 0 || second == std::string::npos || tail.find('.', second + 1) != std::string::npos) return std::nullopt;
  const std::string pid = tail.substr(first + 1, second - first - 1), sequence = tail.substr(second + 1);
  if (!is_number(pid) || sequence.empty() || sequence.size() > 20 ||
      sequence.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return TempFileWriter{tail.substr(0, first), std::stoll(pid)};
}

int RemoveStaleTempFiles(const std::string& dir, double max_age_hours) {
  const std::string host = ThisHost();
  const auto now = std::filesystem::file_time_type::clock::now();
  int removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::optional<TempFileWriter> writer = TempFileOwner(it->path().filename().string());
    if (!writer) continue;
    std::error_code time_error;
    const auto written = it->last_write_time(time_error);
    const bool old =
        !time_error && std::chrono::duration<double, std::ratio<3600>>(now - written).count() > max_age_hours;
    // Another host's, or this host's with a live process (this one
    // included), may still be being written.
    const bool ours = writer->host == host || writer->host.empty();
    const bool alive = ::kill(pid_t(writer->pid), 0) == 0 || errno == EPERM;
    if (!old && (!ours || alive)) continue;
    std::error_code ignored;
    if (std::filesystem::remove(it->path(), ignored)) ++removed;
  }
  return removed;
}

}  // namespace loa
