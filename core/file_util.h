#pragma once
// Whole-file reads with a size bound, and atomic writes.

#include <cstdint>
#include <optional>
#include <string>

namespace loa {

// The most bytes ReadFile reads unless told otherwise: far beyond any net,
// shard or record this project writes, so that only a wrong file meets it.
inline constexpr int64_t kMaxFileBytes = int64_t{1} << 30;
// The bound for text meant to be read by people: records, configs, openings.
inline constexpr int64_t kMaxTextBytes = int64_t{16} << 20;

// Returns the contents of the regular file at path. Throws IoError naming it
// when it cannot be opened, is not a regular file (a folder, a device, a
// pipe) or holds more than max_bytes.
std::string ReadFile(const std::string& path, int64_t max_bytes = kMaxFileBytes);

// Returns the file's contents, or nothing when it cannot be read (absent,
// removed meanwhile, not a file): for a file whose absence means a default.
std::optional<std::string> ReadFileIfAny(const std::string& path, int64_t max_bytes = kMaxFileBytes);

// Returns the file's contents: nothing, without a word, when there is no
// file at path (or it went meanwhile); nothing, with *damage naming the
// path and what is wrong, when one is there that cannot be read (a folder,
// unreadable, larger than max_bytes): for the run's small state files,
// whose damage every reader reports.
std::optional<std::string> ReadFileUnlessDamaged(const std::string& path, std::string* damage,
                                                 int64_t max_bytes = kMaxTextBytes);

// Renames the damaged file (or folder) at path to path.damaged (then
// path.damaged-2, ...: nothing set aside before is replaced), kept for
// inspection, so that a sound one can take its place; returns the new
// path. Throws IoError naming both.
std::string SetAsideDamaged(const std::string& path);

// Throws IoError naming path unless it is an existing regular file.
void CheckRegularFile(const std::string& path);

// Returns the absolute path of this process's program (/proc/self/exe), or
// "" where it cannot be read.
std::string ThisExecutable();

// Returns where a file the build knows by a fixed path lives: in a bundle
// (scripts/bundle.sh: bin/ beside web/, nets/, share/), `relative` under
// the folder above the program's own, when it is there; else built_in
// (the source tree's or the system's path, compiled in). So an unpacked
// bundle reads its own copies wherever it lies, and nothing outside it.
std::string InstalledFile(const std::string& relative, const std::string& built_in);

// How WriteFileAtomic treats a file already at the path.
enum class Existing { kReplace, kKeep };

// Writes contents to path through a temporary file in the same folder
// (PATH.tmp.HOST.PID.SEQ, see TempFileName) and a rename, so that a
// reader sees the old file or the new one, never a part. With
// Existing::kKeep an existing file is never replaced: the write throws
// instead. Throws IoError naming the path.
void WriteFileAtomic(const std::string& path, const std::string& contents, Existing existing = Existing::kReplace);

// Returns this machine's name as temporary files carry it: the environment's
// LOAZ_HOST when set, else the host name, each byte outside [A-Za-z0-9-]
// written as '-'.
std::string ThisHost();

// Who writes a temporary file: its host and process.
struct TempFileWriter {
  std::string host;  // "" for the older form NAME.tmp.PID, which names none
  int64_t pid = -1;
};

// Returns a fresh temporary name for path: PATH.tmp.HOST.PID.SEQ. Folders
// that several machines share (`loaz selfplay --run DIR` on two hosts) hold
// the temporaries of all of them, told apart by HOST.
std::string TempFileName(const std::string& path);

// Returns the writer named in a temporary file's name, or nothing when the
// name is not one of TempFileName's (nor of the older NAME.tmp.PID).
std::optional<TempFileWriter> TempFileOwner(const std::string& name);

// Removes the temporary files of WriteFileAtomic in dir that no writer can
// still be writing: this host's whose process is gone (left by a crash),
// and anyone's older than max_age_hours (a host that crashed and never came
// back). Another host's recent temporaries stay: their process may be
// alive there. Returns how many it removed.
int RemoveStaleTempFiles(const std::string& dir, double max_age_hours = 24);

}  // namespace loa
