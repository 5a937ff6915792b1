#pragma once
// Whole-file reads and atomic writes.

#include <string>

namespace loa {

// Returns the contents of the file at path; throws IoError naming it.
std::string ReadFile(const std::string& path);

// Writes contents to path through a temporary file in the same folder and a
// rename, so that a reader sees the old file or the new one, never a part.
// Throws IoError naming the path.
void WriteFileAtomic(const std::string& path, const std::string& contents);

}  // namespace loa
