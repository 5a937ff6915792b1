#pragma once
// The project's one random generator and seed mixer: the same seed gives the
// same numbers on every platform and standard library (std::mt19937's
// distributions and std::gamma_distribution do not promise that). Every
// random choice (search noise, self-play, players, openings) draws from it,
// seeded from a config or spec seed, never from the clock (docs/STYLE.md).

#include <cmath>
#include <cstdint>

namespace loa {

// The golden-ratio increment of SplitMix64.
inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

// Returns a well-mixed 64-bit value of x (SplitMix64's finaliser, Steele, Lea,
// Flood 2014); used to derive independent seeds, e.g. Mix(seed ^ Mix(game)).
// Successive values of Mix(s), s += kGoldenGamma, are the SplitMix64 stream.
constexpr uint64_t Mix(uint64_t x) {
  x += kGoldenGamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Returns a well-mixed seed from two values: MixSeed(match_seed, game_number)
// and the like.
constexpr uint64_t MixSeed(uint64_t a, uint64_t b) {
  return Mix(a * kGoldenGamma + b + 0x632BE59BD9B4E019ULL - kGoldenGamma);
}

// xoshiro256** (Blackman, Vigna 2018). Not thread-safe: one per thread or game.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { Seed(seed); }

  // Restarts the sequence from seed.
  void Seed(uint64_t seed) {
    for (uint64_t& word : state_) word = seed = Mix(seed);
  }

  // Returns the next 64 random bits.
  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9, t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Returns a number in [0, n) for 0 < n < 2^31 (the top 32 bits of a draw,
  // scaled: Lemire's multiply-shift without the rejection step; the bias is
  // below n / 2^32).
  int Below(int n) { return int(((Next() >> 32) * uint64_t(n)) >> 32); }

  // Returns a uniform double in [0, 1).
  double Uniform() { return double(Next() >> 11) * 0x1.0p-53; }

  // Returns a standard normal deviate (Marsaglia's polar method).
  double Normal() {
    for (;;) {
      const double u = 2 * Uniform() - 1, v = 2 * Uniform() - 1, s = u * u + v * v;
      if (s > 0 && s < 1) return u * std::sqrt(-2 * std::log(s) / s);
    }
  }

  // Returns a Gamma(shape, 1) deviate, shape > 0 (Marsaglia, Tsang 2000; for
  // shape < 1 the boost Gamma(shape + 1) * U^(1 / shape)).
  double Gamma(double shape) {
    if (shape < 1) {
      double u = Uniform();
      while (u <= 0) u = Uniform();
      return Gamma(shape + 1) * std::pow(u, 1 / shape);
    }
    const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
    for (;;) {
      double x, v;
      do {
        x = Normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = Uniform();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (u > 0 && std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
    }
  }

 private:
  static constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace loa
