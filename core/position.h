#pragma once
// A position: the placement of the pieces and the side to move, with its
// Zobrist hash. Copy-make: Apply returns a new position.

#include <string>
#include <string_view>

#include "core/bitboard.h"
#include "core/move.h"
#include "core/types.h"

namespace loa {

// The two start positions of docs/RULES.md.
enum class StartKind { kStandard, kScrambled };

// The two colours' bitboards, a Zobrist hash whose lowest bit is the side to
// move, and the board's size (6, 7 or 8: the n x n corner of the bitboard;
// the hash holds it too, 8 adding nothing). Trivially copyable; all methods
// are const and thread-safe.
class Position {
 public:
  // An empty board, Black to move; only useful as a placeholder.
  Position() = default;
  // The board of `size` (IsBoardSize) with the given pieces; the sets must
  // not overlap and must lie on the board.
  Position(Bitboard black, Bitboard white, Color side_to_move, int size = kBoardSize);

  // Returns the start position of the given kind on the board of `size`,
  // Black to move (docs/RULES.md, "Board sizes").
  static Position Start(StartKind kind = StartKind::kStandard, int size = kBoardSize);

  // Parses a position string (docs/RULES.md); its number of ranks is the
  // board's size. Throws ParseError naming the string and the fault (rank
  // length, unknown letter, side to move, piece counts).
  static Position FromString(std::string_view text);
  // Other programs' strings (FENs, OpenSpiel's) read with ReadPosition and
  // are written with FormatPosition (core/formats.h).

  // Returns the position string, e.g. "1bbbbbb1/w6w/.../1bbbbbb1 b".
  std::string ToString() const;

  // Returns the board as lines of text, the top rank first, with coordinates.
  std::string Diagram() const;

  // The board's size and its squares (BoardMask(size())).
  int size() const { return size_; }
  Bitboard board() const { return BoardMask(size_); }
  Bitboard pieces(Color c) const { return pieces_[c]; }
  Bitboard occupied() const { return pieces_[kBlack] | pieces_[kWhite]; }
  Color side_to_move() const { return Color(hash_ & 1); }
  uint64_t hash() const { return hash_; }

  // Appends every legal move; the pass alone when no other move exists. The
  // caller decides whether the game is already over (Game, perft).
  void GenerateMoves(MoveList& moves) const;

  // Returns the number of moves GenerateMoves would append.
  int CountMoves() const;

  // Returns whether m is among the moves GenerateMoves appends.
  bool IsLegal(Move m) const;

  // Returns the regular move of origin `from` in direction `dir` if it is
  // legal, else the null move. This is the way back from a policy index.
  Move MoveAt(Square from, Direction dir) const;

  // Returns the position after m; m must be legal here.
  Position Apply(Move m) const;

  // Returns whether the pieces of c form one group (a single piece does).
  bool IsUnited(Color c) const { return IsConnected(pieces_[c]); }

  bool operator==(const Position& o) const {
    return pieces_[0] == o.pieces_[0] && pieces_[1] == o.pieces_[1] && hash_ == o.hash_ && size_ == o.size_;
  }
  bool operator!=(const Position& o) const { return !(*this == o); }

 private:
  Bitboard pieces_[2] = {0, 0};
  uint64_t hash_ = 0;
  int8_t size_ = kBoardSize;
};

// Calls visit(from, to, direction, capture) for each regular move of the
// pieces `own` against `enemy` on the squares `board` (the pass is not one):
// the one move generator, shared by Position and by evaluations that count
// the side not to move. Pieces lie on the board, so a line's count is the
// whole bitboard line's; only the landing square must be checked.
template <typename Visit>
inline void ForEachMove(Bitboard own, Bitboard enemy, Bitboard board, Visit&& visit) {
  const Bitboard occupied = own | enemy;
  for (Bitboard b = own; b;) {
    const Square from = PopLowest(b);
    for (int o = 0; o < kNumOrientations; ++o) {
      const int distance = PopCount(occupied & LineThrough(Orientation(o), from));
      for (Direction dir : {Direction(o), Reverse(Direction(o))}) {
        const Square to = TargetSquare(from, dir, distance);
        if (to == kNoSquare || !(board & SquareBB(to)) || (own & SquareBB(to)) || (enemy & Between(from, to))) continue;
        visit(from, to, dir, (enemy & SquareBB(to)) != 0);
      }
    }
  }
}

// Returns the Zobrist key of a piece of colour c on square s (lowest bit 0).
uint64_t PieceKey(Color c, Square s);

// Returns the Zobrist key of the board's size (0 for 8 x 8, lowest bit 0).
uint64_t SizeKey(int size);

// Returns the name of square s, e.g. "e4".
std::string SquareName(Square s);

// Parses a square name such as "e4" or "E4"; returns kNoSquare if malformed.
Square ParseSquare(std::string_view text);

}  // namespace loa
