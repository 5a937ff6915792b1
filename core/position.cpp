#include "core/position.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <vector>

#include "core/error.h"
#include "core/random.h"

namespace loa {
namespace {

struct ZobristKeys {
  uint64_t piece[2][kNumSquares] = {};
  uint64_t size[kBoardSize + 1] = {};  // size[8] = 0: the 8 x 8 hashes as before sizes
  constexpr ZobristKeys() {
    // The SplitMix64 stream from "LOAZero\0": a fixed, portable key sequence.
    uint64_t state = 0x4C4F415A65726F00ULL;
    for (auto& side : piece)
      for (auto& key : side) {
        key = Mix(state) & ~uint64_t{1};
        state += kGoldenGamma;
      }
    for (int n = kMinBoardSize; n < kBoardSize; ++n) {
      size[n] = Mix(state) & ~uint64_t{1};
      state += kGoldenGamma;
    }
  }
};

constexpr ZobristKeys kZobrist{};

// The side-to-move bit of the hash.
constexpr uint64_t kWhiteToMove = 1;

// The most pieces a side may have: as many as it starts with (12 on 8 x 8).
constexpr int MaxPiecesPerSide(int size) { return 2 * (size - 2); }

// The start squares of docs/RULES.md on the board of `size`: the first and
// last ranks without their corners (Black's in the standard start) and the
// first and last files without theirs (White's).
constexpr Bitboard EdgeRanksInner(int size) {
  const Bitboard inner = ((Bitboard{1} << (size - 1)) - 1) & ~Bitboard{1};  // b..(size - 1)
  return inner | inner << (8 * (size - 1));
}
constexpr Bitboard EdgeFilesInner(int size) {
  Bitboard b = 0;
  for (int r = 1; r < size - 1; ++r) b |= SquareBB(MakeSquare(0, r)) | SquareBB(MakeSquare(size - 1, r));
  return b;
}

// Black's squares of Scrambled Eggs: every other square of each edge, so that
// on 8 x 8 they are b1 d1 f1, c8 e8 g8, a3 a5 a7, h2 h4 h6 (docs/RULES.md).
constexpr Bitboard ScrambledBlack(int size) {
  Bitboard b = 0;
  for (int i = 1; i < size - 1; ++i) {
    if (i % 2 == 1) b |= SquareBB(MakeSquare(i, 0)) | SquareBB(MakeSquare(size - 1, i));  // b1 d1 f1, h2 h4 h6
    if (i % 2 == 0) b |= SquareBB(MakeSquare(i, size - 1)) | SquareBB(MakeSquare(0, i));  // c8 e8 g8, a3 a5 a7
  }
  return b;
}

// ---- Move counting by lines -------------------------------------------------
// A piece's moves along a line depend only on what that line holds, so a
// side's number of legal moves is a sum of table lookups, one per line. Four
// layouts of the board put every line into a byte, alone or with a second line
// of the same orientation, so that one lookup per byte counts them.

// Returns b rotated right by n bits (0 < n < 64).
constexpr Bitboard RotateRight(Bitboard b, int n) { return (b >> n) | (b << (64 - n)); }

// Returns b with the square on file f and rank r moved to file f and rank
// (r - f) mod 8: byte k holds the diagonal file - rank = -k in its low 8 - k
// bits and the diagonal file - rank = 8 - k in the others, in file order.
// (chessprogramming.org, "Pseudo-Rotation by 45 degrees clockwise".)
constexpr Bitboard FoldDiagonals(Bitboard b) {
  b ^= 0xAAAAAAAAAAAAAAAAULL & (b ^ RotateRight(b, 8));
  b ^= 0xCCCCCCCCCCCCCCCCULL & (b ^ RotateRight(b, 16));
  return b ^ (0xF0F0F0F0F0F0F0F0ULL & (b ^ RotateRight(b, 32)));
}

// Returns b with the square on file f and rank r moved to file f and rank
// (r + f + 1) mod 8: byte k holds the anti-diagonal file + rank = k - 1 in its
// low k bits and the anti-diagonal file + rank = k + 7 in the others, in file
// order. (chessprogramming.org, "Pseudo-Rotation by 45 degrees
// anti-clockwise".)
constexpr Bitboard FoldAntiDiagonals(Bitboard b) {
  b ^= 0x5555555555555555ULL & (b ^ RotateRight(b, 8));
  b ^= 0x3333333333333333ULL & (b ^ RotateRight(b, 16));
  return b ^ (0x0F0F0F0F0F0F0F0FULL & (b ^ RotateRight(b, 32)));
}

// Returns whether every square lands where the comments above say.
constexpr bool LayoutsAsDocumented() {
  for (Square s = 0; s < kNumSquares; ++s) {
    const int f = FileOf(s), r = RankOf(s);
    if (FlipDiagonal(SquareBB(s)) != SquareBB(MakeSquare(r, f)) ||
        FoldDiagonals(SquareBB(s)) != SquareBB(MakeSquare(f, (r - f + 8) % 8)) ||
        FoldAntiDiagonals(SquareBB(s)) != SquareBB(MakeSquare(f, (r + f + 1) % 8)))
      return false;
  }
  return true;
}
static_assert(LayoutsAsDocumented());

// 3 to the powers 0..8.
constexpr int kPow3[9] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};

// Move counts of a byte holding one line of 8 squares, or two lines of
// `split` and 8 - split squares, indexed by what it holds as a base-3 number.
struct ByteMoveTable {
  // base3[b]: the number whose base-3 digits are the bits of b (digit i = bit i).
  uint16_t base3[256] = {};
  // count[Offset(split) + p]: the number of legal moves of the side to move
  // along a line of the low `split` squares plus a line of the other 8 - split,
  // when digit i of p says what square i holds: 0 empty, 1 a piece of the side
  // to move, 2 an enemy piece.
  uint8_t count[8 * kPow3[8]] = {};

  // Returns where the block of `split` (1..8) starts in count.
  static constexpr size_t Offset(int split) { return size_t(split - 1) * kPow3[8]; }

  // Built line by line to stay within clang's default constexpr step limit
  // (about 850,000 of 1,048,576 steps).
  constexpr ByteMoveTable() {
    for (int b = 0; b < 256; ++b)
      for (int i = 0; i < 8; ++i) base3[b] += ((b >> i) & 1) * kPow3[i];
    // line[(3^length - 1) / 2 + p]: the moves along a line of `length` squares
    // (0..8) holding p (as above).
    uint8_t line[(kPow3[8] * 3 - 1) / 2] = {};
    for (int length = 0; length <= 8; ++length) {
      const unsigned squares = (1u << length) - 1;
      for (unsigned own = 0; own <= squares; ++own) {
        for (unsigned enemy = squares & ~own;; enemy = (enemy - 1) & squares & ~own) {  // each subset
          line[(kPow3[length] - 1) / 2 + base3[own] + 2 * base3[enemy]] = LineMoves(length, own, enemy);
          if (enemy == 0) break;
        }
      }
    }
    for (int split = 1; split <= 8; ++split)
      for (int high = 0; high < kPow3[8 - split]; ++high)
        for (int low = 0; low < kPow3[split]; ++low)
          count[Offset(split) + high * kPow3[split] + low] =
              line[(kPow3[split] - 1) / 2 + low] + line[(kPow3[8 - split] - 1) / 2 + high];
  }

  // Returns the number of legal moves along a line of `length` squares whose
  // squares in `own` and `enemy` hold pieces of the side to move and of the
  // other, by the rules: a piece moves as many squares as the line holds
  // pieces, stays on the line, lands on no own piece and jumps no enemy one.
  static constexpr int LineMoves(int length, unsigned own, unsigned enemy) {
    const int pieces = __builtin_popcount(own | enemy);
    int moves = 0;
    for (unsigned rest = own; rest; rest &= rest - 1) {
      const int from = __builtin_ctz(rest);
      for (int to : {from - pieces, from + pieces}) {
        if (to < 0 || to >= length || ((own >> to) & 1)) continue;
        const int low = from < to ? from : to, high = from < to ? to : from;
        moves += (enemy & ((1u << high) - (2u << low))) == 0;  // none strictly between
      }
    }
    return moves;
  }
};

constexpr ByteMoveTable kByteMoves{};

// Returns the number of legal moves along the lines held in the bytes of a
// layout of own and enemy pieces; byte k holds a line of split(k) squares in
// its low bits and one of 8 - split(k) in the others.
template <typename Split>
inline int LayoutMoves(Bitboard own, Bitboard enemy, Split split) {
  int n = 0;
  for (int k = 0; k < 8; ++k) {
    const size_t own_digits = kByteMoves.base3[(own >> (8 * k)) & 0xFF];
    const size_t enemy_digits = kByteMoves.base3[(enemy >> (8 * k)) & 0xFF];
    n += kByteMoves.count[ByteMoveTable::Offset(split(k)) + own_digits + 2 * enemy_digits];
  }
  return n;
}

// Returns whether m is the move that MoveAt(m.from(), m.direction()) returns
// when own and enemy are the pieces of the side to move and of the other; the
// same test without branches, for Apply to assert on every call.
[[maybe_unused]] bool IsRegularMove(Bitboard own, Bitboard enemy, Bitboard board, Move m) {
  const Square from = m.from(), to = m.to();
  const int distance = PopCount((own | enemy) & LineThrough(OrientationOf(m.direction()), from));
  const Bitboard to_bb = SquareBB(to);
  return (TargetSquare(from, m.direction(), distance) == to) & ((own >> from) & 1) & !(own & to_bb) &
         ((board & to_bb) != 0) & !(enemy & Between(from, to)) & (m.is_capture() == ((enemy & to_bb) != 0));
}

}  // namespace

uint64_t PieceKey(Color c, Square s) { return kZobrist.piece[c][s]; }

uint64_t SizeKey(int size) { return kZobrist.size[size]; }

std::string SquareName(Square s) { return {char('a' + FileOf(s)), char('1' + RankOf(s))}; }

Square ParseSquare(std::string_view text) {
  if (text.size() != 2) return kNoSquare;
  int f = (text[0] | 0x20) - 'a', r = text[1] - '1';
  return OnBoard(f, r) ? MakeSquare(f, r) : kNoSquare;
}

Position::Position(Bitboard black, Bitboard white, Color side_to_move, int size) {
  assert(IsBoardSize(size) && (black & white) == 0 && ((black | white) & ~BoardMask(size)) == 0);
  pieces_[kBlack] = black;
  pieces_[kWhite] = white;
  size_ = int8_t(size);
  hash_ = (side_to_move == kWhite ? kWhiteToMove : 0) ^ SizeKey(size);
  for (Color c : {kBlack, kWhite})
    for (Bitboard b = pieces_[c]; b;) hash_ ^= PieceKey(c, PopLowest(b));
}

Position Position::Start(StartKind kind, int size) {
  assert(IsBoardSize(size));
  const Bitboard edges = EdgeRanksInner(size) | EdgeFilesInner(size);
  const Bitboard black = kind == StartKind::kStandard ? EdgeRanksInner(size) : ScrambledBlack(size);
  return Position(black, edges & ~black, kBlack, size);
}

Position Position::FromString(std::string_view text) {
  const std::string quoted = "position '" + Excerpt(text) + "': ";
  auto fail = [&](const std::string& why) { throw ParseError(quoted + why); };
  // The board: the ranks before the first space, top rank first; their number is its size.
  const std::string_view board_text = text.substr(0, text.find(' '));
  std::vector<std::string_view> ranks;
  for (size_t begin = 0;;) {
    const size_t slash = board_text.find('/', begin);
    ranks.push_back(board_text.substr(begin, slash == std::string_view::npos ? slash : slash - begin));
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  const int size = int(ranks.size());
  if (!IsBoardSize(size))
    fail(std::to_string(size) + (size == 1 ? " rank" : " ranks") +
         " separated by '/', not 6, 7 or 8 (the board's size)");
  const std::string of_size = std::to_string(size) + " (the board's size: its number of ranks)";
  Bitboard pieces[2] = {0, 0};
  for (int i = 0; i < size; ++i) {
    const int rank = size - 1 - i;
    const std::string name = std::string("rank ") + char('1' + rank);
    int file = 0;
    for (char ch : ranks[i]) {
      if (ch >= '1' && ch <= '8') {
        file += ch - '0';
      } else if (ch == 'b' || ch == 'w' || ch == 'B' || ch == 'W') {
        if (file < size) pieces[(ch | 0x20) == 'w'] |= SquareBB(MakeSquare(file, rank));
        ++file;
      } else {
        fail("unknown letter '" + Excerpt(std::string_view(&ch, 1)) + "' in " + name);
      }
      if (file > size) fail(name + " has more than " + of_size + " squares");
    }
    if (file != size) fail(name + " has " + std::to_string(file) + " squares, not " + of_size);
  }
  size_t i = board_text.size();
  while (i < text.size() && text[i] == ' ') ++i;
  if (i >= text.size()) fail("missing side to move ('b' or 'w')");
  std::string_view side = text.substr(i);
  while (!side.empty() && (side.back() == ' ' || side.back() == '\n' || side.back() == '\r')) side.remove_suffix(1);
  Color to_move;
  if (side == "b" || side == "B") {
    to_move = kBlack;
  } else if (side == "w" || side == "W") {
    to_move = kWhite;
  } else {
    fail("side to move must be 'b' or 'w', not '" + Excerpt(side) + "'");
  }
  for (Color c : {kBlack, kWhite}) {
    const char* name = c == kBlack ? "black" : "white";
    const int n = PopCount(pieces[c]), most = MaxPiecesPerSide(size);
    if (n == 0) fail(std::string(name) + " has no piece");
    if (n > most)
      fail(std::string(name) + " has " + std::to_string(n) + " pieces, more than " + std::to_string(most) +
           (size == kBoardSize ? "" : " (on " + std::to_string(size) + "x" + std::to_string(size) + ")"));
  }
  return Position(pieces[kBlack], pieces[kWhite], to_move, size);
}

std::string Position::ToString() const {
  std::string s;
  for (int rank = size_ - 1; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < size_; ++file) {
      Bitboard b = SquareBB(MakeSquare(file, rank));
      char ch = (pieces_[kBlack] & b) ? 'b' : (pieces_[kWhite] & b) ? 'w' : 0;
      if (!ch) {
        ++empty;
        continue;
      }
      if (empty) s += char('0' + empty);
      empty = 0;
      s += ch;
    }
    if (empty) s += char('0' + empty);
    if (rank) s += '/';
  }
  s += side_to_move() == kBlack ? " b" : " w";
  return s;
}

std::string Position::Diagram() const {
  std::string s;
  for (int rank = size_ - 1; rank >= 0; --rank) {
    s += "  ";
    s += char('1' + rank);
    for (int file = 0; file < size_; ++file) {
      Bitboard b = SquareBB(MakeSquare(file, rank));
      s += ' ';
      s += (pieces_[kBlack] & b) ? 'b' : (pieces_[kWhite] & b) ? 'w' : '.';
    }
    s += '\n';
  }
  s += "   ";
  for (int file = 0; file < size_; ++file) s += std::string(" ") + char('a' + file);
  s += '\n';
  return s;
}

void Position::GenerateMoves(MoveList& moves) const {
  const int before = moves.size();
  ForEachMove(
      pieces_[side_to_move()], pieces_[Opponent(side_to_move())], board(),
      [&](Square from, Square to, Direction dir, bool capture) { moves.push_back(Move(from, to, dir, capture)); });
  if (moves.size() == before) moves.push_back(Move::Pass());
}

int Position::CountMoves() const {
  const Color us = side_to_move();
  const Bitboard own = pieces_[us], enemy = pieces_[Opponent(us)];
  if (size_ != kBoardSize) {  // the byte tables know lines of 8 squares only
    int n = 0;
    ForEachMove(own, enemy, board(), [&](Square, Square, Direction, bool) { ++n; });
    return n ? n : 1;
  }
  // Ranks, files, diagonals, anti-diagonals; the lambdas give the split of
  // each byte (see the layouts).
  auto whole = [](int) { return 8; };
  int n = LayoutMoves(own, enemy, whole);
  n += LayoutMoves(FlipDiagonal(own), FlipDiagonal(enemy), whole);
  n += LayoutMoves(FoldDiagonals(own), FoldDiagonals(enemy), [](int k) { return 8 - k; });
  n += LayoutMoves(FoldAntiDiagonals(own), FoldAntiDiagonals(enemy), [](int k) { return k ? k : 8; });
  return n ? n : 1;
}

Move Position::MoveAt(Square from, Direction dir) const {
  const Color us = side_to_move();
  const Bitboard own = pieces_[us], enemy = pieces_[Opponent(us)];
  if (!(own & SquareBB(from))) return Move();
  const int distance = PopCount(occupied() & LineThrough(OrientationOf(dir), from));
  const Square to = TargetSquare(from, dir, distance);
  if (to == kNoSquare || !(board() & SquareBB(to)) || (own & SquareBB(to)) || (enemy & Between(from, to)))
    return Move();
  return Move(from, to, dir, (enemy & SquareBB(to)) != 0);
}

bool Position::IsLegal(Move m) const {
  if (m.is_pass()) {
    bool any = false;
    ForEachMove(pieces_[side_to_move()], pieces_[Opponent(side_to_move())], board(),
                [&](Square, Square, Direction, bool) { any = true; });
    return !any;
  }
  return !m.is_null() && MoveAt(m.from(), m.direction()) == m;
}

Position Position::Apply(Move m) const {
  Position next = *this;
  next.hash_ ^= kWhiteToMove;
  if (m.is_pass()) return next;
  const Color us = side_to_move(), them = Opponent(us);
  assert(IsRegularMove(pieces_[us], pieces_[them], board(), m));
  const Bitboard to = SquareBB(m.to()), captured = pieces_[them] & to;
  next.pieces_[us] ^= SquareBB(m.from()) | to;
  next.pieces_[them] ^= captured;
  next.hash_ ^= PieceKey(us, m.from()) ^ PieceKey(us, m.to()) ^ (captured ? PieceKey(them, m.to()) : 0);
  return next;
}

}  // namespace loa
