#pragma once
// The ways a file of a run can be damaged, for the tests of every reader:
// each damaged file is named with its path, never taken for a sound one,
// and the run goes on.

#include <filesystem>
#include <string>

#include "core/file_util.h"

namespace loa::testing {

enum class Damage { kTruncated, kGarbled, kEmptied, kFolder };
inline constexpr Damage kEveryDamage[] = {Damage::kTruncated, Damage::kGarbled, Damage::kEmptied, Damage::kFolder};

inline const char* DamageName(Damage damage) {
  switch (damage) {
    case Damage::kTruncated:
      return "truncated";
    case Damage::kGarbled:
      return "garbled";
    case Damage::kEmptied:
      return "emptied";
    case Damage::kFolder:
      return "a folder";
  }
  return "?";
}

// Damages the file at path: cut in half, every third byte flipped, emptied,
// or replaced by a folder.
inline void DamageFile(const std::string& path, Damage damage) {
  std::string text = ReadFile(path);
  std::filesystem::remove(path);
  switch (damage) {
    case Damage::kTruncated:
      WriteFileAtomic(path, text.substr(0, text.size() / 2));
      break;
    case Damage::kGarbled:
      for (std::size_t i = 0; i < text.size(); i += 3) text[i] = char(text[i] ^ 0x5a);
      WriteFileAtomic(path, text);
      break;
    case Damage::kEmptied:
      WriteFileAtomic(path, "");
      break;
    case Damage::kFolder:
      std::filesystem::create_directories(path);
      break;
  }
}

}  // namespace loa::testing
