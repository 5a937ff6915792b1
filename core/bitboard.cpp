#include "core/bitboard.h"

namespace loa {
namespace {

// Returns the 8-connected group of `within` that contains the squares of seed.
Bitboard Grow(Bitboard seed, Bitboard within) {
  Bitboard group = seed;
  for (;;) {
    Bitboard grown = (group | Neighbours(group)) & within;
    if (grown == group) return group;
    group = grown;
  }
}

}  // namespace

bool IsConnected(Bitboard b) {
  if ((b & (b - 1)) == 0) return true;
  // Most sets fail early: a square with no neighbour in the set.
  if (b & ~Neighbours(b)) return false;
  return Grow(b & (0 - b), b) == b;
}

Bitboard GroupOf(Bitboard seed, Bitboard within) { return Grow(seed, within); }

int CountGroups(Bitboard b) {
  int groups = 0;
  while (b) {
    b &= ~Grow(b & (0 - b), b);
    ++groups;
  }
  return groups;
}

}  // namespace loa
