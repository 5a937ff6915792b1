#pragma once
// Whole-file reads with a size bound, and atomic writes.

#include <cstdint>
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

// Throws IoError naming path unless it is an existing regular file.
void CheckRegularFile(const std::string& path);

// How WriteFileAtomic treats a file already at the path.
enum class Existing { kReplace, kKeep };

// Writes contents to path through a temporary file in the same folder
// (PATH.tmp.PID) and a rename, so that a reader sees the old file or the new
// one, never a part. With Existing::kKeep an existing file is never
// replaced: the write throws instead. Throws IoError naming the path.
void WriteFileAtomic(const std::string& path, const std::string& contents, Existing existing = Existing::kReplace);

// Returns the process id in a temporary file's name NAME.tmp.PID, or -1 when
// the name is not one.
int64_t TempFileOwner(const std::string& name);

// Removes the temporary files of WriteFileAtomic in dir whose process is no
// longer alive (left by a crash); returns how many it removed.
int RemoveStaleTempFiles(const std::string& dir);

}  // namespace loa
