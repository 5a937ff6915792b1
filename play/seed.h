#pragma once
// Seeds and bounded random numbers that give the same sequence on every
// platform (std::uniform_int_distribution does not).

#include <cstdint>
#include <random>

namespace loa {

// Returns a well-mixed seed from two values (SplitMix64 finaliser, Steele,
// Lea and Flood 2014): MixSeed(match_seed, game_number) and the like.
constexpr uint64_t MixSeed(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9E3779B97F4A7C15ULL + b + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Returns a number in [0, n) from rng; n must be positive and small (the
// top 32 bits of a draw, scaled: Lemire's multiply-shift without the
// rejection step; the bias is below n / 2^32).
inline int RandomBelow(std::mt19937_64& rng, int n) { return int(((rng() >> 32) * uint64_t(n)) >> 32); }

}  // namespace loa
