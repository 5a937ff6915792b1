#pragma once
// A move in 16 bits and a fixed-capacity move list.

#include <cassert>
#include <cstdint>

#include "core/types.h"

namespace loa {

// A move: origin (6 bits), destination (6 bits), capture flag (1 bit) and
// direction (3 bits). The direction is redundant with origin and destination
// but makes the policy index free. Move() is the null move; Move::Pass() is the
// pass, legal only when the side to move has no other move.
class Move {
 public:
  constexpr Move() = default;
  constexpr Move(Square from, Square to, Direction dir, bool capture)
      : bits_(uint16_t(from | to << 6 | int(capture) << 12 | dir << 13)) {}

  // Returns the pass.
  static constexpr Move Pass() { return Move(kPassBits); }

  constexpr Square from() const { return bits_ & 63; }
  constexpr Square to() const { return (bits_ >> 6) & 63; }
  constexpr bool is_capture() const { return (bits_ >> 12) & 1; }
  constexpr Direction direction() const { return Direction(bits_ >> 13); }
  constexpr bool is_pass() const { return bits_ == kPassBits; }
  constexpr bool is_null() const { return bits_ == 0; }
  constexpr uint16_t raw() const { return bits_; }
  static constexpr Move FromRaw(uint16_t bits) { return Move(bits); }

  // Returns the policy index from * 8 + direction (0..511) of a regular move.
  constexpr int PolicyIndex() const { return from() * kNumDirections + direction(); }

  constexpr bool operator==(Move o) const { return bits_ == o.bits_; }
  constexpr bool operator!=(Move o) const { return bits_ != o.bits_; }

 private:
  // from == to marks the special moves: no regular move has it.
  static constexpr uint16_t kPassBits = 0xFFFF;
  explicit constexpr Move(uint16_t bits) : bits_(bits) {}
  uint16_t bits_ = 0;
};

// The number of policy slots: 64 origins x 8 directions.
inline constexpr int kPolicySize = kNumSquares * kNumDirections;

// Returns the origin square of policy index i.
constexpr Square PolicyFrom(int i) { return i / kNumDirections; }
// Returns the direction of policy index i.
constexpr Direction PolicyDirection(int i) { return Direction(i % kNumDirections); }

// At most 12 pieces x 8 directions moves exist in any position.
inline constexpr int kMaxMoves = 96;

// A list of moves in a fixed array: no heap allocation.
class MoveList {
 public:
  void push_back(Move m) {
    assert(size_ < kMaxMoves);
    moves_[size_++] = m;
  }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  Move operator[](int i) const { return moves_[i]; }
  Move& operator[](int i) { return moves_[i]; }
  const Move* begin() const { return moves_; }
  const Move* end() const { return moves_ + size_; }
  Move* begin() { return moves_; }
  Move* end() { return moves_ + size_; }
  // Returns whether m is in the list.
  bool contains(Move m) const {
    for (Move x : *this)
      if (x == m) return true;
    return false;
  }

 private:
  Move moves_[kMaxMoves];
  int size_ = 0;
};

}  // namespace loa
