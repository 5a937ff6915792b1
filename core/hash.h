#pragma once
// FNV-1a 64 (Fowler, Noll, Vo): a fast, portable hash of bytes, for
// checksums of files and stable seeds from names. Not cryptographic.

#include <cstdint>
#include <string_view>

namespace loa {

inline constexpr uint64_t kFnv1a64Basis = 0xcbf29ce484222325ULL;

// Returns the FNV-1a 64 hash of bytes; pass the hash of the bytes before
// them as `hash` to hash a sequence piece by piece.
constexpr uint64_t Fnv1a64(std::string_view bytes, uint64_t hash = kFnv1a64Basis) {
  for (char c : bytes) {
    hash ^= uint8_t(c);
    hash *= 0x100000001b3ULL;  // the 64-bit FNV prime
  }
  return hash;
}

}  // namespace loa
