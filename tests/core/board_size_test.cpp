// Boards of 6 x 6 and 7 x 7 beside 8 x 8 (docs/RULES.md, "Board sizes"):
// the core against a slow, obvious implementation of the rules written here
// without it (a grid of cells, lines walked square by square, groups by
// flood fill), for the start layouts, the moves and perft.

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/game.h"
#include "core/notation.h"
#include "core/perft.h"
#include "core/position.h"
#include "core/random_play.h"
#include "core/testing.h"

namespace loa {
namespace {

// ---- The reference: nothing from the core but what it is compared with ----

enum Cell : char { kEmpty = '.', kB = 'b', kW = 'w' };

struct Grid {
  int n = 8;
  std::array<std::array<Cell, 8>, 8> cell{};  // cell[file][rank]
  Cell to_move = kB;
};

bool Inside(const Grid& g, int f, int r) { return f >= 0 && f < g.n && r >= 0 && r < g.n; }

// The layouts as docs/RULES.md words them: Black on the first and last ranks,
// White on the first and last files, corners empty; Scrambled Eggs swaps
// every other piece along each edge so that b1 and h2 are Black's.
Grid ReferenceStart(int n, bool scrambled) {
  Grid g;
  g.n = n;
  for (auto& column : g.cell) column.fill(kEmpty);
  for (int i = 1; i < n - 1; ++i) {
    g.cell[i][0] = g.cell[i][n - 1] = kB;
    g.cell[0][i] = g.cell[n - 1][i] = kW;
    if (scrambled) {
      g.cell[i][0] = i % 2 ? kB : kW;      // rank 1: b1 black, c1 white, ...
      g.cell[i][n - 1] = i % 2 ? kW : kB;  // last rank: b white, c black, ...
      g.cell[0][i] = i % 2 ? kW : kB;      // file a: a2 white, a3 black, ...
      g.cell[n - 1][i] = i % 2 ? kB : kW;  // last file: 2 black, 3 white, ...
    }
  }
  return g;
}

struct RefMove {
  int ff, fr, tf, tr;
};

std::vector<RefMove> ReferenceMoves(const Grid& g) {
  static const int kSteps[8][2] = {{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}};
  const Cell us = g.to_move, them = us == kB ? kW : kB;
  std::vector<RefMove> moves;
  for (int f = 0; f < g.n; ++f)
    for (int r = 0; r < g.n; ++r) {
      if (g.cell[f][r] != us) continue;
      for (const auto& step : kSteps) {
        int count = 0;  // pieces on the whole line, both ways, the mover included
        for (int k = -7; k <= 7; ++k)
          if (Inside(g, f + k * step[0], r + k * step[1]) && g.cell[f + k * step[0]][r + k * step[1]] != kEmpty)
            ++count;
        const int tf = f + count * step[0], tr = r + count * step[1];
        if (!Inside(g, tf, tr) || g.cell[tf][tr] == us) continue;
        bool blocked = false;
        for (int k = 1; k < count; ++k) blocked |= g.cell[f + k * step[0]][r + k * step[1]] == them;
        if (!blocked) moves.push_back({f, r, tf, tr});
      }
    }
  return moves;
}

bool ReferenceUnited(const Grid& g, Cell side) {
  std::vector<std::pair<int, int>> stack;
  bool seen[8][8] = {};
  int total = 0;
  for (int f = 0; f < g.n; ++f)
    for (int r = 0; r < g.n; ++r)
      if (g.cell[f][r] == side) {
        ++total;
        if (stack.empty()) {
          stack.push_back({f, r});
          seen[f][r] = true;
        }
      }
  int reached = 0;
  while (!stack.empty()) {
    const auto [f, r] = stack.back();
    stack.pop_back();
    ++reached;
    for (int df = -1; df <= 1; ++df)
      for (int dr = -1; dr <= 1; ++dr)
        if (Inside(g, f + df, r + dr) && !seen[f + df][r + dr] && g.cell[f + df][r + dr] == side) {
          seen[f + df][r + dr] = true;
          stack.push_back({f + df, r + dr});
        }
  }
  return reached == total;
}

Grid ReferenceApply(Grid g, const RefMove& m) {
  g.cell[m.tf][m.tr] = g.cell[m.ff][m.fr];
  g.cell[m.ff][m.fr] = kEmpty;
  g.to_move = g.to_move == kB ? kW : kB;
  return g;
}

// Perft as docs/RULES.md defines it: a position where a side is united has
// no moves; a side with no move passes.
uint64_t ReferencePerft(const Grid& g, int depth) {
  if (depth == 0) return 1;
  if (ReferenceUnited(g, kB) || ReferenceUnited(g, kW)) return 0;
  const std::vector<RefMove> moves = ReferenceMoves(g);
  if (moves.empty()) {
    Grid passed = g;
    passed.to_move = g.to_move == kB ? kW : kB;
    return ReferencePerft(passed, depth - 1);
  }
  if (depth == 1) return moves.size();
  uint64_t total = 0;
  for (const RefMove& m : moves) total += ReferencePerft(ReferenceApply(g, m), depth - 1);
  return total;
}

// ---- The core against it ----

// Returns the core's position holding what the grid holds.
Position ToPosition(const Grid& g) {
  Bitboard b = 0, w = 0;
  for (int f = 0; f < g.n; ++f)
    for (int r = 0; r < g.n; ++r) {
      if (g.cell[f][r] == kB) b |= SquareBB(MakeSquare(f, r));
      if (g.cell[f][r] == kW) w |= SquareBB(MakeSquare(f, r));
    }
  return Position(b, w, g.to_move == kB ? kBlack : kWhite, g.n);
}

Grid ToGrid(const Position& pos) {
  Grid g;
  g.n = pos.size();
  for (int f = 0; f < 8; ++f)
    for (int r = 0; r < 8; ++r) {
      const Bitboard s = SquareBB(MakeSquare(f, r));
      g.cell[f][r] = (pos.pieces(kBlack) & s) ? kB : (pos.pieces(kWhite) & s) ? kW : kEmpty;
    }
  g.to_move = pos.side_to_move() == kBlack ? kB : kW;
  return g;
}

std::vector<std::string> Names(const std::vector<RefMove>& moves) {
  std::vector<std::string> names;
  for (const RefMove& m : moves)
    names.push_back(SquareName(MakeSquare(m.ff, m.fr)) + SquareName(MakeSquare(m.tf, m.tr)));
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Names(const Position& pos) {
  MoveList list;
  pos.GenerateMoves(list);
  std::vector<std::string> names;
  for (Move m : list)
    if (!m.is_pass()) names.push_back(SquareName(m.from()) + SquareName(m.to()));
  std::sort(names.begin(), names.end());
  return names;
}

TEST(BoardSizeTest, StartLayoutsAreTheReferences) {
  EXPECT_EQ(Position::Start(StartKind::kStandard, 6).ToString(), "1bbbb1/w4w/w4w/w4w/w4w/1bbbb1 b");
  EXPECT_EQ(Position::Start(StartKind::kScrambled, 6).ToString(), "1wbwb1/b4w/w4b/b4w/w4b/1bwbw1 b");
  EXPECT_EQ(Position::Start(StartKind::kStandard, 7).ToString(), "1bbbbb1/w5w/w5w/w5w/w5w/w5w/1bbbbb1 b");
  for (int n = kMinBoardSize; n <= kBoardSize; ++n)
    for (bool scrambled : {false, true}) {
      const Position start = Position::Start(scrambled ? StartKind::kScrambled : StartKind::kStandard, n);
      EXPECT_EQ(start, ToPosition(ReferenceStart(n, scrambled))) << n << (scrambled ? " scrambled" : "");
      EXPECT_EQ(start.size(), n);
      EXPECT_EQ(PopCount(start.pieces(kBlack)), 2 * (n - 2));
      EXPECT_EQ(PopCount(start.pieces(kWhite)), 2 * (n - 2));
      EXPECT_EQ(Position::FromString(start.ToString()), start);
    }
  // The 8 x 8 layouts are docs/RULES.md's, as before sizes existed.
  EXPECT_EQ(Position::Start(StartKind::kScrambled).ToString(), "1wbwbwb1/b6w/w6b/b6w/w6b/b6w/w6b/1bwbwbw1 b");
}

TEST(BoardSizeTest, PerftOfEachSizeEqualsTheReference) {
  for (int n : {6, 7})
    for (bool scrambled : {false, true}) {
      const Grid grid = ReferenceStart(n, scrambled);
      const Position start = ToPosition(grid);
      for (int depth = 1; depth <= 5; ++depth)
        ASSERT_EQ(Perft(start, depth), ReferencePerft(grid, depth))
            << n << "x" << n << (scrambled ? " scrambled" : " standard") << " depth " << depth;
    }
}

// The counts of docs/RULES.md's table, so that both implementations cannot
// change together unseen.
TEST(BoardSizeTest, PerftTableOfDocsRules) {
  struct Row {
    int size;
    StartKind start;
    uint64_t counts[5];  // depths 1..5
  };
  const Row kTable[] = {
      {6, StartKind::kStandard, {24, 524, 11440, 234560, 4853792}},
      {6, StartKind::kScrambled, {20, 392, 7700, 147336, 2872088}},
      {7, StartKind::kStandard, {30, 848, 25012, 698880, 19914620}},
      {7, StartKind::kScrambled, {24, 556, 13496, 318358, 7816468}},
  };
  for (const Row& row : kTable)
    for (int depth = 1; depth <= 5; ++depth)
      EXPECT_EQ(Perft(Position::Start(row.start, row.size), depth), row.counts[depth - 1]) << row.size << " " << depth;
}

TEST(BoardSizeTest, MovesEqualTheReferenceOnRandomPositions) {
  for (int n : {6, 7})
    for (const Position& pos : RandomPositions(2000, 11 + n, true, 200, n)) {
      const Grid grid = ToGrid(pos);
      ASSERT_EQ(Names(pos), Names(ReferenceMoves(grid))) << pos.ToString();
      ASSERT_EQ(pos.CountMoves(), std::max<int>(1, ReferenceMoves(grid).size())) << pos.ToString();
      ASSERT_EQ(pos.IsUnited(kBlack), ReferenceUnited(grid, kB)) << pos.ToString();
      ASSERT_EQ(pos.board() & (pos.pieces(kBlack) | pos.pieces(kWhite)), pos.occupied());
    }
}

TEST(BoardSizeTest, TheSizeIsPartOfThePositionAndItsHash) {
  const Position six = Position::FromString("1bbbb1/w4w/w4w/w4w/w4w/1bbbb1 b");
  const Position eight(six.pieces(kBlack), six.pieces(kWhite), kBlack);  // the same squares on 8 x 8
  EXPECT_NE(six, eight);
  EXPECT_NE(six.hash(), eight.hash());
  EXPECT_EQ(six.Apply(Move::Pass()).Apply(Move::Pass()).hash(), six.hash());
  // b1 moves 2 along the b-file on both, but east along rank 1 only 8 x 8 has f1..h1 room enough.
  EXPECT_TRUE(six.MoveAt(ParseSquare("e1"), kEast).is_null());
  EXPECT_EQ(six.Diagram(),
            "  6 . b b b b .\n  5 w . . . . w\n  4 w . . . . w\n  3 w . . . . w\n  2 w . . . . w\n"
            "  1 . b b b b .\n    a b c d e f\n");
}

TEST(BoardSizeTest, BadSizesAreOneClearLine) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { Position::FromString("1bb1/w2w/w2w/1bb1 b"); }),
            "position '1bb1/w2w/w2w/1bb1 b': 4 ranks separated by '/', not 6, 7 or 8 (the board's size)");
  EXPECT_NE(message([] { Position::FromString("bbbbb1/bbbb2/6/6/5w/6 b"); }).find("more than 8 (on 6x6)"),
            std::string::npos);
  const Position six = Position::Start(StartKind::kStandard, 6);
  EXPECT_NE(message([&] { ParseMove("b1-g1", six); }).find("'g1' is not a square of the 6x6 board"), std::string::npos);
  EXPECT_EQ(message([&] { Game(Rules(), six); }),
            "position '1bbbb1/w4w/w4w/w4w/w4w/1bbbb1 b' is 6x6 but the rules say size=8");
  EXPECT_THROW(Rules::FromString("size=5"), ParseError);
  EXPECT_THROW(Rules::FromString("size=9"), ParseError);
}

TEST(BoardSizeTest, GamesOfEachSizeEndUnderTheRules) {
  for (int n : {6, 7}) {
    Rules rules = Rules::FromString("size=" + std::to_string(n) + " max_plies=300");
    EXPECT_EQ(Game(rules).position(), Position::Start(StartKind::kStandard, n));
    int ended = 0;
    for (const Game& game : testing::RandomGames(50, n, rules, 300, 300, false)) {
      EXPECT_EQ(game.position().size(), n);
      ended += game.over();
    }
    EXPECT_EQ(ended, 50);
  }
}

}  // namespace
}  // namespace loa
