// The alpha-beta search: forced wins, legality, agreement with plain minimax,
// determinism.

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "alphabeta/search.h"
#include "core/notation.h"
#include "core/random_play.h"
#include "core/testing.h"

namespace loa::ab {
namespace {

// Returns whether the side to move can force a win within n of its own moves
// (olympiad rules, no repetition): an AND-OR search independent of AlphaBeta.
bool CanWinWithin(const Position& pos, int n);

// Returns whether playing m in pos keeps a forced win within n moves.
bool MoveWinsWithin(const Position& pos, Move m, int n) {
  const Color us = pos.side_to_move();
  const Position child = pos.Apply(m);
  const Verdict verdict = UnitedVerdict(child, us, Simultaneous::kDraw);
  if (verdict.over()) return verdict.result == WinFor(us);
  if (n == 1) return false;
  MoveList replies;
  child.GenerateMoves(replies);
  for (Move r : replies) {
    const Position next = child.Apply(r);
    const Verdict after = UnitedVerdict(next, Opponent(us), Simultaneous::kDraw);
    if (after.over() ? after.result != WinFor(us) : !CanWinWithin(next, n - 1)) return false;
  }
  return true;
}

bool CanWinWithin(const Position& pos, int n) {
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves)
    if (MoveWinsWithin(pos, m, n)) return true;
  return false;
}

// Plain minimax with the same evaluation and win scores as the search.
int Minimax(const Position& pos, int depth, int ply) {
  if (depth == 0) return StaticScore(pos, EvalWeights::Default());
  const Color us = pos.side_to_move();
  MoveList moves;
  pos.GenerateMoves(moves);
  int best = -kWinScore - 1;
  for (Move m : moves) {
    const Position child = pos.Apply(m);
    const Verdict verdict = UnitedVerdict(child, us, Simultaneous::kDraw);
    int score;
    if (!verdict.over())
      score = -Minimax(child, depth - 1, ply + 1);
    else if (verdict.result == Result::kDraw)
      score = 0;
    else
      score = verdict.result == WinFor(us) ? kWinScore - (ply + 1) : -(kWinScore - (ply + 1));
    best = std::max(best, score);
  }
  return best;
}

SearchOptions PlainOptions() { return SearchOptions::Plain(); }

struct ForcedWin {
  const char* fen;
  int moves;  // the side to move wins with its n-th move, not sooner
};

// Found by random play from the start, checked by CanWinWithin (below, too).
const ForcedWin kForcedWins[] = {
    {"5b2/6w1/8/8/5b2/4wwbb/1w2w3/w7 b", 1},
    {"4b3/4b3/4bw2/3b4/6b1/bww5/2ww4/8 w", 1},
    {"b4w2/b3w3/w1wb4/2w1wb2/1w1wb3/1b6/2w1b1b1/8 w", 2},
    {"8/8/4wb2/w7/2b2b2/w2bb3/1bw4w/4b3 b", 2},
    {"8/1bb5/4b3/8/2ww4/b6w/b1bw4/w7 w", 3},
    {"3b1b2/4b3/4w3/2b5/3w2w1/4b3/2w5/7b w", 3},
};

// Stop from another thread ends a search with no limit that would end it
// (an hour, depth 64) once it has been asked: the test would hang otherwise.
TEST(AlphaBetaTest, StopEndsASearchFromAnotherThread) {
  AlphaBeta search;
  SearchLimits limits;
  limits.seconds = 3600;
  std::atomic<int> iterations{0};
  std::thread stopper;
  const SearchResult result = search.Search(Game(), limits, [&](const SearchResult&) {
    if (++iterations == 2) stopper = std::thread([&search] { search.Stop(); });
  });
  stopper.join();
  EXPECT_GE(result.depth, 2);
  EXPECT_LT(result.depth, kMaxSearchDepth);
  EXPECT_FALSE(result.best.is_null());
  // The request does not outlive its search: the next one runs to its limit.
  limits = SearchLimits();
  limits.depth = 3;
  EXPECT_EQ(search.Search(Game(), limits).depth, 3);
}

// Expects a search with options, two plies past the win, to score it at its
// distance and to play a move that wins within it.
void ExpectFindsForcedWin(const SearchOptions& options, const ForcedWin& win) {
  SCOPED_TRACE(win.fen);
  const Position pos = Position::FromString(win.fen);
  AlphaBeta search(options);
  SearchLimits limits;
  limits.depth = 2 * win.moves + 3;
  const SearchResult result = search.Search(Game(Rules(), pos), limits);
  EXPECT_EQ(result.score, kWinScore - (2 * win.moves - 1));
  EXPECT_TRUE(MoveWinsWithin(pos, result.best, win.moves)) << "move " << int(result.best.raw());
}

TEST(AlphaBetaTest, FindsForcedWinsInOneTwoAndThree) {
  for (const ForcedWin& win : kForcedWins) {
    SCOPED_TRACE(win.fen);
    const Position pos = Position::FromString(win.fen);
    ASSERT_TRUE(CanWinWithin(pos, win.moves));
    if (win.moves > 1) {
      ASSERT_FALSE(CanWinWithin(pos, win.moves - 1));
    }
    ExpectFindsForcedWin(SearchOptions(), win);
  }
}

TEST(AlphaBetaTest, PlainSearchFindsTheSameWins) {
  for (const ForcedWin& win : kForcedWins) {
    SCOPED_TRACE(win.fen);
    const Position pos = Position::FromString(win.fen);
    AlphaBeta search(PlainOptions());
    SearchLimits limits;
    limits.depth = 2 * win.moves - 1;
    const SearchResult result = search.Search(Game(Rules(), pos), limits);
    EXPECT_EQ(result.score, kWinScore - (2 * win.moves - 1));
    EXPECT_TRUE(MoveWinsWithin(pos, result.best, win.moves));
  }
}

TEST(AlphaBetaTest, LeafCheckSeesAUnionOnePlyBeyondTheHorizon) {
  for (const ForcedWin& win : kForcedWins) {
    if (win.moves != 2) continue;
    SCOPED_TRACE(win.fen);
    SearchOptions options = PlainOptions();
    SearchLimits limits;
    limits.depth = 2;
    EXPECT_LT(AlphaBeta(options).Search(Game(Rules(), Position::FromString(win.fen)), limits).score,
              kWinScore - kMaxPly);
    options.leaf_win_check = true;
    EXPECT_EQ(AlphaBeta(options).Search(Game(Rules(), Position::FromString(win.fen)), limits).score, kWinScore - 3);
  }
}

TEST(AlphaBetaTest, AgreesWithMinimaxAtDepthThree) {
  for (const Game& game : testing::RandomGames(12, 11, Rules(), 4, 63, true)) {
    SCOPED_TRACE(game.position().ToString());
    AlphaBeta search(PlainOptions());
    SearchLimits limits;
    limits.depth = 3;
    const SearchResult result = search.Search(Game(Rules(), game.position()), limits);
    EXPECT_EQ(result.depth, 3);
    EXPECT_EQ(result.score, Minimax(game.position(), 3, 0));
  }
}

TEST(AlphaBetaTest, ReturnsLegalMovesUnderEveryLimit) {
  Rng rng(5);
  for (const Game& game : testing::RandomGames(30, 23, Rules(), 4, 63, true)) {
    SearchLimits limits;
    if (rng.Below(2))
      limits.depth = 1 + rng.Below(4);
    else
      limits.nodes = 1 + rng.Below(5000);
    AlphaBeta search;
    const SearchResult result = search.Search(game, limits);
    EXPECT_TRUE(game.position().IsLegal(result.best)) << game.position().ToString();
    EXPECT_FALSE(result.pv.empty());
  }
}

TEST(AlphaBetaTest, PassesWhenNoOtherMoveExists) {
  // Each black piece sits in a corner behind three white ones.
  const Game game(Rules(), Position::FromString("6wb/6ww/8/8/8/8/ww6/bw6 b"));
  ASSERT_FALSE(game.over());
  AlphaBeta search;
  SearchLimits limits;
  limits.depth = 4;
  EXPECT_TRUE(search.Search(game, limits).best.is_pass());
}

TEST(AlphaBetaTest, IsDeterministicAtFixedDepthAndNodes) {
  for (const Game& game : testing::RandomGames(4, 31, Rules(), 4, 63, true)) {
    for (int which = 0; which < 2; ++which) {
      SearchLimits limits;
      if (which == 0)
        limits.depth = 5;
      else
        limits.nodes = 20000;
      AlphaBeta first, second;
      const SearchResult a = first.Search(game, limits), b = second.Search(game, limits);
      EXPECT_EQ(a.best, b.best);
      EXPECT_EQ(a.score, b.score);
      EXPECT_EQ(a.nodes, b.nodes);
      EXPECT_EQ(a.pv, b.pv);
      if (which == 1) {
        EXPECT_LE(a.nodes, limits.nodes);
      }
    }
  }
}

// The bench signature (as Stockfish's `bench`): the node count and score of
// a fixed search. A change to the evaluation, the ordering or the pruning
// changes it; such a commit updates these numbers and says so. Version 1
// keeps its own: the old baseline plays as it always did.
TEST(AlphaBetaTest, BenchSignatureOfVersionOneIsUnchanged) {
  AlphaBeta search(SearchOptions::Version(1), EvalWeights::Version1(), CategoryModel::Uniform());
  SearchLimits limits;
  limits.depth = 6;
  const SearchResult result = search.Search(Game(), limits);
  EXPECT_EQ(result.nodes, 135411);
  EXPECT_EQ(result.score, 14);
}

TEST(AlphaBetaTest, BenchSignatureAtDepthSix) {
  // Versions 2 and 3 as they were measured (docs/BASELINE.md), then today's.
  SearchLimits limits;
  limits.depth = 6;
  AlphaBeta version2(SearchOptions::Version(2), EvalWeights::Version(2));
  SearchResult result = version2.Search(Game(), limits);
  EXPECT_EQ(result.nodes, 71963);
  EXPECT_EQ(result.score, 9);
  AlphaBeta version3(SearchOptions::Version(3), EvalWeights::Version(3));
  result = version3.Search(Game(), limits);
  EXPECT_EQ(result.nodes, 33824);
  EXPECT_EQ(result.score, 17);
  AlphaBeta version4(SearchOptions::Version(4), EvalWeights::Version(4));
  result = version4.Search(Game(), limits);
  EXPECT_EQ(result.nodes, 40626);
  EXPECT_EQ(result.score, 15);
  static_assert(kLatestVersion == 5);
  AlphaBeta latest;
  result = latest.Search(Game(), limits);
  EXPECT_EQ(result.nodes, 50342);
  EXPECT_EQ(result.score, 17);
}

TEST(AlphaBetaTest, SeesRepetitionDrawsInTheGameHistory) {
  // Two pieces shuffle out and back twice; white's c2-a2 would then bring the
  // start position a third time: a draw. With an evaluation that is only the
  // tempo, every other move scores below zero for white.
  Game game;
  for (const char* text : {"b1-b3", "a2-c2", "b3-b1", "c2-a2", "b1-b3", "a2-c2", "b3-b1"})
    game.Play(ParseMove(text, game.position()));
  ASSERT_FALSE(game.over());
  EvalWeights tempo_only;
  tempo_only.concentration = tempo_only.centralisation = tempo_only.centre_of_mass = tempo_only.quads = 0;
  tempo_only.mobility = tempo_only.walls = tempo_only.connectedness = tempo_only.uniformity = 0;
  tempo_only.side_to_move = 100;
  AlphaBeta search(PlainOptions(), tempo_only);
  SearchLimits limits;
  limits.depth = 1;
  const SearchResult result = search.Search(game, limits);
  EXPECT_EQ(result.score, 0);
  EXPECT_EQ(result.best, ParseMove("c2-a2", game.position()));
}

}  // namespace
}  // namespace loa::ab

namespace loa::ab {
namespace {

// Nodes summed over fixed-depth searches of a fixed set of positions.
int64_t NodesOnSet(const SearchOptions& options, const CategoryModel& categories, int depth) {
  int64_t nodes = 0;
  for (const Game& game : testing::RandomGames(8, 41, Rules(), 6, 40, true)) {
    AlphaBeta search(options, EvalWeights::Version1(), categories);
    SearchLimits limits;
    limits.depth = depth;
    nodes += search.Search(game, limits).nodes;
  }
  return nodes;
}

// A model that makes captures likely and quiet moves unlikely.
CategoryModel CapturesLikely() {
  CategoryModel model = CategoryModel::Uniform();
  for (int c = 0; c < kNumMoveCategories; ++c)
    model.probability[c] = c >= kNumMoveCategories / kNumCaptureKinds ? 0.1f : 0.002f;
  return model;
}

// Each technique that prunes or reorders shrinks the tree of a fixed-depth
// search: a test that fails when the technique is switched off or broken.
TEST(AlphaBetaTechniquesTest, EachPruningShrinksTheTree) {
  SearchOptions base = SearchOptions::Version(1);
  const CategoryModel uniform = CategoryModel::Uniform();
  const int64_t without = NodesOnSet(base, uniform, 6);
  // Each switch on its own; "reorders" only needs the tree to differ.
  struct Technique {
    const char* name;
    bool SearchOptions::*flag;
    bool prunes;
  };
  for (const Technique& t : {Technique{"etc", &SearchOptions::enhanced_transposition_cutoffs, true},
                             Technique{"multi_cut", &SearchOptions::multi_cut, true},
                             Technique{"relative_history", &SearchOptions::relative_history, false},
                             Technique{"late_move_pruning", &SearchOptions::late_move_pruning, true},
                             Technique{"futility", &SearchOptions::futility, true},
                             Technique{"log_reductions", &SearchOptions::log_reductions, false}}) {
    SCOPED_TRACE(t.name);
    SearchOptions options = base;
    options.*t.flag = true;
    const int64_t nodes = NodesOnSet(options, uniform, 6);
    if (t.prunes) {
      EXPECT_LT(nodes, without);
    } else {
      EXPECT_NE(nodes, without);
    }
  }
  // Internal iterative reduction: nodes with no table move a ply shallower.
  SearchOptions iir = base;
  iir.internal_reduction = true;
  EXPECT_LT(NodesOnSet(iir, uniform, 6), without);
  // The threat extension searches threatened nodes deeper.
  SearchOptions threats = base;
  threats.threat_extension = true;
  EXPECT_GT(NodesOnSet(threats, uniform, 6), without);
  // History reductions read relative history: moves that often cut are reduced less.
  SearchOptions relative = base;
  relative.relative_history = true;
  SearchOptions history = relative;
  history.history_reductions = true;
  EXPECT_GT(NodesOnSet(history, uniform, 6), NodesOnSet(relative, uniform, 6));
  // Adaptive null move: a deeper reduction above 6 plies, so a search of 8.
  SearchOptions adaptive = base;
  adaptive.adaptive_null_move = true;
  EXPECT_LT(NodesOnSet(adaptive, uniform, 8), NodesOnSet(base, uniform, 8));
  // Realization probability: unlikely moves cost more depth.
  SearchOptions rps = base;
  rps.realization_probability = true;
  EXPECT_LT(NodesOnSet(rps, CapturesLikely(), 6), NodesOnSet(rps, uniform, 6));
}

// The quiescence value of pos for its side to move: the better of its static
// value and each group-cutting capture's, two captures deep; sets ended when
// a capture ends the game (the test skips such positions).
int QuiescenceValue(const Position& pos, const EvalWeights& w, int quiescence_ply, bool& ended) {
  const int stand_pat = StaticScore(pos, w);
  if (quiescence_ply >= 2) return stand_pat;
  int best = stand_pat;
  const Bitboard enemy = pos.pieces(Opponent(pos.side_to_move()));
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves) {
    if (!m.is_capture() || CountGroups(enemy & ~SquareBB(m.to())) <= CountGroups(enemy)) continue;
    const Position child = pos.Apply(m);
    if (UnitedVerdict(child, pos.side_to_move(), Simultaneous::kDraw).over()) {
      ended = true;
      continue;
    }
    best = std::max(best, -QuiescenceValue(child, w, quiescence_ply + 1, ended));
  }
  return best;
}

// Quiescence: at depth 1 the score is the best of the children's quiescence
// values; without it, of their static values.
TEST(AlphaBetaTechniquesTest, QuiescenceSearchesGroupCuttingCaptures) {
  const EvalWeights w = EvalWeights::Version1();
  int differing = 0, checked = 0;
  for (const Game& game : testing::RandomGames(40, 17, Rules(), 10, 40, true)) {
    const Position& pos = game.position();
    MoveList moves;
    pos.GenerateMoves(moves);
    bool ended = false;
    int expected = -kWinScore;
    for (Move m : moves) {
      const Position child = pos.Apply(m);
      ended |= UnitedVerdict(child, pos.side_to_move(), Simultaneous::kDraw).over();
      expected = std::max(expected, -QuiescenceValue(child, w, 0, ended));
    }
    if (ended) continue;
    SearchOptions options = SearchOptions::Plain();
    options.quiescence = true;
    SearchLimits limits;
    limits.depth = 1;
    const int with = AlphaBeta(options, w).Search(Game(Rules(), pos), limits).score;
    const int without = AlphaBeta(SearchOptions::Plain(), w).Search(Game(Rules(), pos), limits).score;
    EXPECT_EQ(with, expected) << pos.ToString();
    ++checked;
    differing += with != without;
  }
  EXPECT_GT(checked, 10);
  EXPECT_GT(differing, 0);  // the captures changed some scores
}

// A union threatened for the next move is LOA's check: with
// quiescence_threats the threatened side tries every move past the horizon
// instead of standing pat, so a depth-1 search sees every win in two moves
// (a move after which no reply parries the union) and nothing else.
TEST(AlphaBetaTechniquesTest, QuiescenceThreatsSeeEveryWinInTwoAtDepthOne) {
  SearchOptions options = SearchOptions::Plain();
  options.leaf_win_check = true;
  options.quiescence = true;
  SearchLimits limits;
  limits.depth = 1;
  auto score = [&](const Position& pos, bool threats, Move* best = nullptr) {
    options.quiescence_threats = threats;
    const SearchResult result = AlphaBeta(options).Search(Game(Rules(), pos), limits);
    if (best) *best = result.best;
    return result.score;
  };
  for (const ForcedWin& win : kForcedWins) {
    if (win.moves != 2) continue;
    SCOPED_TRACE(win.fen);
    const Position pos = Position::FromString(win.fen);
    EXPECT_LT(score(pos, false), kWinScore - kMaxPly);
    Move best;
    EXPECT_EQ(score(pos, true, &best), kWinScore - 3);
    EXPECT_TRUE(MoveWinsWithin(pos, best, 2));
  }
  // Random positions: a decisive win at depth 1 exactly where one exists.
  int wins = 0, checked = 0;
  for (const Game& game : testing::RandomGames(150, 23, Rules(), 30, 150, true)) {
    const Position& pos = game.position();
    if (CanWinWithin(pos, 1)) continue;
    const bool found = score(pos, true) == kWinScore - 3;
    EXPECT_EQ(found, CanWinWithin(pos, 2)) << pos.ToString();
    wins += found;
    ++checked;
  }
  EXPECT_GT(checked, 30);
  EXPECT_GT(wins, 0);
}

TEST(AlphaBetaTechniquesTest, EveryTechniqueAndTwoThreadsFindTheForcedWins) {
  std::vector<SearchOptions> variants;
  for (int which = 0; which < 15; ++which) {
    SearchOptions o = SearchOptions::Version(1);
    if (which == 14) o = SearchOptions(), o.threads = 2, o.abdada = o.deepest_thread = false;
    if (which == 11) o.internal_reduction = true;
    if (which == 12) o.threat_extension = true;
    if (which == 13) o.relative_history = o.history_reductions = true;
    if (which == 9) o.quiescence = o.quiescence_threats = true;
    if (which == 10) o.adaptive_null_move = true;
    if (which == 8) o.futility = true;
    if (which == 6) o.late_move_pruning = true;
    if (which == 7) o.log_reductions = true;
    if (which == 0) o.realization_probability = true;
    if (which == 1) o.quiescence = true;
    if (which == 2) o.enhanced_transposition_cutoffs = true;
    if (which == 3) o.multi_cut = true;
    if (which == 4) o.relative_history = true;
    if (which == 5) o = SearchOptions(), o.threads = 2;
    variants.push_back(o);
  }
  variants.push_back(SearchOptions());
  for (const SearchOptions& options : variants)
    for (const ForcedWin& win : kForcedWins) ExpectFindsForcedWin(options, win);
}

// Searches the start position to `depth`; sets main to the main thread's
// last finished iteration (its nodes: all the main thread's, as a depth
// limit ends the search at an iteration's end) and returns the search's
// result, checked legal.
SearchResult SearchOfTheStart(const SearchOptions& options, int depth, SearchResult& main) {
  AlphaBeta search(options);
  SearchLimits limits;
  limits.depth = depth;
  const Game game;
  const SearchResult result = search.Search(game, limits, [&](const SearchResult& r) { main = r; });
  EXPECT_TRUE(game.position().IsLegal(result.best));
  return result;
}

TEST(AlphaBetaTechniquesTest, HelperThreadsSearchToo) {
  SearchOptions options;
  options.threads = 3;
  SearchResult main;
  const SearchResult result = SearchOfTheStart(options, 7, main);
  EXPECT_EQ(main.depth, 7);
  EXPECT_GT(result.nodes, main.nodes);  // the helpers' nodes count in the result
}

TEST(AlphaBetaTechniquesTest, SearchingNowHoldsWhatIsBegunUntilItEnds) {
  SearchingNow now;
  const uint64_t keys[] = {0x1234'5678'9abc'def1ull, 0x1234'5678'9abc'def1ull + (uint64_t{1} << 40),
                           0xfedc'ba98'7654'3211ull, 0x0f0f'0f0f'0f0f'0f0full};
  for (uint64_t key : keys) EXPECT_FALSE(now.Has(key));
  for (uint64_t key : keys) now.Begin(key);
  for (uint64_t key : keys) EXPECT_TRUE(now.Has(key));
  now.Begin(keys[0]);  // begun twice: one mark
  now.End(keys[0]);
  EXPECT_FALSE(now.Has(keys[0]));
  EXPECT_TRUE(now.Has(keys[1]) && now.Has(keys[2]) && now.Has(keys[3]));
  for (uint64_t key : keys) now.End(key);
  for (uint64_t key : keys) EXPECT_FALSE(now.Has(key));

  // A bucket (keys alike but in their lowest bits) holds four keys: a fifth
  // goes unmarked, and is marked once one of them ends.
  const uint64_t alike = 0xabcd'0000'0000'0000ull;
  for (uint64_t i = 0; i < 5; ++i) now.Begin(alike + 2 * i);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_TRUE(now.Has(alike + 2 * i)) << i;
  EXPECT_FALSE(now.Has(alike + 8));
  now.End(alike);
  now.Begin(alike + 8);
  EXPECT_TRUE(now.Has(alike + 8));
  for (uint64_t i = 1; i < 5; ++i) now.End(alike + 2 * i);

  // Threads beginning and ending their own keys leave nothing behind.
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t)
    threads.emplace_back([&now, t] {
      for (uint64_t i = 0; i < 20000; ++i) {
        const uint64_t key = (i * 4 + t) * 0x9e37'79b9'7f4a'7c15ull;
        now.Begin(key);
        now.End(key);
      }
    });
  for (auto& thread : threads) thread.join();
  for (uint64_t i = 0; i < 20000 * 4; ++i) ASSERT_FALSE(now.Has(i * 0x9e37'79b9'7f4a'7c15ull)) << i;
}

TEST(AlphaBetaTechniquesTest, TheDeepestThreadsMoveIsPlayed) {
  MoveList moves;
  Game().position().GenerateMoves(moves);
  std::vector<SearchResult> results(3);
  for (size_t i = 0; i < results.size(); ++i) results[i].best = moves[int(i)];
  results[0].depth = 7, results[1].depth = 8, results[2].depth = 8;
  EXPECT_EQ(DeepestResult(results), 1u);  // the first of the deepest
  results[1].depth = 7, results[2].depth = 7;
  EXPECT_EQ(DeepestResult(results), 0u);  // the main thread's on a tie
  results[2].depth = 9, results[2].best = Move();
  EXPECT_EQ(DeepestResult(results), 0u);  // a helper without a move is never played

  // In a search: the result is a helper's when it went deeper than the main
  // thread's last iteration, and never shallower.
  SearchOptions options;
  options.threads = 2;
  for (bool deepest : {false, true}) {
    options.deepest_thread = deepest;
    SearchResult main;
    const SearchResult result = SearchOfTheStart(options, 6, main);
    if (deepest)
      EXPECT_GE(result.depth, main.depth);
    else
      EXPECT_EQ(result.depth, main.depth);
  }
}

}  // namespace
}  // namespace loa::ab
