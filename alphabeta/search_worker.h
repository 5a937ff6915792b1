#pragma once
// A private header of the alpha-beta search: one thread's SearchWorker
// (alphabeta/search_worker.cpp: iterative deepening, the root, the negamax;
// alphabeta/search_node.cpp: quiescence, the cutoffs, move ordering and the
// per-thread bookkeeping) and the constants both files use. Included by
// those two and by alphabeta/search.cpp, which runs the workers; below the
// searcher (alphabeta/search.h), never including it.

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "alphabeta/move_category.h"
#include "alphabeta/search_types.h"
#include "alphabeta/static_eval.h"
#include "alphabeta/transposition_table.h"
#include "core/game.h"

namespace loa::ab {
namespace search_internal {

constexpr int kInfinity = kWinScore + 1;

// Depths are counted in sixteenths of a ply, so that realization-probability
// search can charge a move part of a ply or more than one.
constexpr int kOnePly = 16;

// Null-move pruning (Donninger 1993), as MIA uses it (Winands 2004): the
// depth reduction R and the least remaining depth at which it is tried.
constexpr int kNullMoveReduction = 2 * kOnePly;
// Adaptive null move (Heinz 1999): R = 3 above this depth.
constexpr int kNullMoveDeepDepth = 6 * kOnePly;
constexpr int kNullMoveDeepReduction = 3 * kOnePly;
constexpr int kNullMoveMinDepth = 3 * kOnePly;

// Late-move reductions (as in Stockfish and Fruit), where realization
// probability is off: quiet moves after the first kLmrFullDepthMoves, at
// kLmrMinDepth or more, are searched one ply shallower (two from
// kLmrDeepMoveIndex on at kLmrDeepMinDepth or more) and searched again at
// full depth when they beat alpha.
constexpr int kLmrMinDepth = 3 * kOnePly;
constexpr int kLmrFullDepthMoves = 3;
constexpr int kLmrDeepMoveIndex = 10;
constexpr int kLmrDeepMinDepth = 6 * kOnePly;

// Logarithmic late-move reductions (log_reductions): a quiet move's from
// the third on is reduced by kLogReductionBase + ln(depth) ln(move number) /
// kLogReductionDivisor plies, one ply less at PV nodes, never past one ply
// above the horizon.
constexpr int kLogReductionFirstMove = 2;  // the first two moves are searched in full
constexpr double kLogReductionBase = 0.5;
constexpr double kLogReductionDivisor = 2.25;

// Returns the logarithmic reduction, in sixteenths of a ply, of move index i
// (0 the first) at a depth in sixteenths of a ply.
inline int LogReduction(int depth, int i) {
  static const auto table = [] {
    std::array<std::array<int16_t, kMaxMoves>, kMaxSearchDepth + 1> t{};
    for (int d = 1; d <= kMaxSearchDepth; ++d)
      for (int m = 1; m < kMaxMoves; ++m)
        t[d][m] =
            int16_t(std::lround(kOnePly * (kLogReductionBase + std::log(d) * std::log(m + 1) / kLogReductionDivisor)));
    return t;
  }();
  return table[std::min(depth / kOnePly, kMaxSearchDepth)][i];
}

// Late-move pruning: at non-PV nodes of at most options.lmp_depth plies,
// quiet moves from number options.lmp_base + kLmpPerPly2 x depth^2 (plies)
// on are skipped.
constexpr int kLmpPerPly2 = 2;

// Futility pruning (futility): at non-PV nodes of at most kFutilityMaxDepth,
// kFutilityMargin points a ply of depth; skipping late quiet moves only
// where at most kFutilityMoveDepth remains.
constexpr int kFutilityMaxDepth = 3 * kOnePly;
constexpr int kFutilityMoveDepth = 2 * kOnePly;
constexpr int kFutilityMargin = 60;

// Realization probability: a move costs between these depths, whatever its
// category's probability (Winands and Bjornsson 2008 bound it the same way).
constexpr int kMinMoveCost = kOnePly;
constexpr int kMaxMoveCost = 3 * kOnePly;

// Multi-cut (Bjornsson and Marsland 2001; MIA's M, C and R): at an expected
// cut node, if kMultiCutCuts of the first kMultiCutMoves moves fail high at a
// depth reduced by kMultiCutReduction, the node is cut.
constexpr int kMultiCutMoves = 10;
constexpr int kMultiCutCuts = 3;
constexpr int kMultiCutReduction = 2 * kOnePly;
constexpr int kMultiCutMinDepth = 4 * kOnePly;

// Enhanced transposition cutoffs (Plaat et al. 1996) from this depth on,
// where a probe of every child pays for itself.
constexpr int kEtcMinDepth = 3 * kOnePly;

// Internal iterative reduction from this depth on.
constexpr int kInternalReductionMinDepth = 4 * kOnePly;

// Simplified ABDADA (abdada) from this depth on: below it a move is cheaper
// to search twice than to mark.
constexpr int kAbdadaMinDepth = 3 * kOnePly;

// Quiescence: at most this many group-cutting captures past the horizon.
constexpr int kMaxQuiescencePlies = 2;

// Aspiration windows: from kAspirationMinDepth on, the root is searched with
// a window of this half-width around the last iteration's score, and again
// with the failing side open when the score falls outside.
constexpr int kAspirationMinDepth = 4;
constexpr int kAspirationWindow = 40;

// The clock is read once every this many nodes (a power of two).
constexpr int64_t kClockCheckNodes = 1024;

// Move-ordering keys: the table move, then captures (where realization
// probability is off), then the two killers, then the rest by history score
// (kept below kHistoryLimit) or, with realization probability, by category
// probability and relative history (each below kOrderingUnit).
constexpr int kTableMoveKey = 1 << 30;
constexpr int kCaptureKey = 1 << 28;
constexpr int kKillerKey[2] = {1 << 27, 1 << 26};
constexpr int kHistoryLimit = 1 << 24;
constexpr int kOrderingUnit = 1 << 12;

// History reductions: a quiet move's relative history (in kOrderingUnit)
// from which its late-move reduction is a ply smaller.
constexpr int kGoodHistory = kOrderingUnit / 2;

// Returns a score as stored in the table: wins counted from this node.
inline int ScoreToTable(int score, int ply) {
  if (score > kWinScore - kMaxPly) return score + ply;
  if (score < -kWinScore + kMaxPly) return score - ply;
  return score;
}

// Returns a table score as seen from a node at ply.
inline int ScoreFromTable(int score, int ply) {
  if (score > kWinScore - kMaxPly) return score - ply;
  if (score < -kWinScore + kMaxPly) return score + ply;
  return score;
}

// Moves the highest-keyed move of moves[i..] to position i; ties keep order.
inline void PickNext(MoveList& moves, int* keys, int* categories, int i) {
  int best = i;
  for (int j = i + 1; j < moves.size(); ++j)
    if (keys[j] > keys[best]) best = j;
  std::swap(moves[i], moves[best]);
  std::swap(keys[i], keys[best]);
  std::swap(categories[i], categories[best]);
}

}  // namespace search_internal

using namespace search_internal;

// What the threads of one searcher share: its settings, its table and the
// flags that stop them.
struct SharedSearch {
  const SearchOptions& options;
  const EvalWeights& weights;
  const CategoryModel& categories;
  TranspositionTable& table;
  SearchingNow* searching;                  // with threads and abdada, else null
  const std::atomic<bool>& stop_requested;  // AlphaBeta::Stop was called
  const std::atomic<bool>& stop_all;        // the main worker ended: the helpers end too
};

// One thread's search: its killers, history, path and principal variation;
// the table is the searcher's, shared.
class SearchWorker {
 public:
  SearchWorker(int index, const SharedSearch& shared)
      : index_(index),
        options_(shared.options),
        weights_(shared.weights),
        table_(shared.table),
        searching_(shared.searching),
        stop_requested_(shared.stop_requested),
        stop_all_(shared.stop_all) {
    const CategoryModel& model = shared.categories;
    for (int c = 0; c < kNumMoveCategories; ++c) {
      const float p = std::clamp(model.probability[c], 1e-6f, 1.0f);
      move_cost_[c] =
          std::clamp(int(std::lround(kOnePly * std::log(p) / std::log(model.reference))), kMinMoveCost, kMaxMoveCost);
      order_key_[c] = int(p * (kOrderingUnit - 1));
    }
    Clear();
  }

  void Clear() {
    for (auto& pair : killers_) pair[0] = pair[1] = Move();
    std::memset(history_, 0, sizeof(history_));
    std::memset(tries_, 0, sizeof(tries_));
  }

  // Sets up a search of game's position (the game's history for repetitions).
  void Prepare(const Game& game, const SearchLimits& limits, std::chrono::steady_clock::time_point start) {
    rules_ = game.rules();
    limits_ = limits;
    start_ = start;
    nodes_ = 0;
    stopped_ = false;
    frames_.clear();
    Position replay = game.start();
    frames_.push_back({replay.hash(), 0});
    for (Move m : game.moves()) {
      replay = replay.Apply(m);
      PushFrame(replay, m);
    }
    root_frame_ = int(frames_.size()) - 1;
    root_game_ply_ = game.ply();
    for (auto& pair : killers_) pair[0] = pair[1] = Move();
    for (int(*side)[kNumSquares] : {history_[0], history_[1], tries_[0], tries_[1]})
      for (int from = 0; from < kNumSquares; ++from)
        for (int to = 0; to < kNumSquares; ++to) side[from][to] /= 2;
  }

  // Iterative deepening from the root of game; the main worker (index 0)
  // reports each iteration, helpers start at an odd depth each other one.
  SearchResult Run(const Game& game, const std::function<void(const SearchResult&)>& on_iteration);

  int64_t nodes() const { return nodes_; }

 private:
  struct Frame {
    uint64_t hash;
    int irreversible;  // index of the latest frame no earlier frame can equal
  };

  int AspirationSearch(const Position& pos, int depth, int previous, Move& best);
  int SearchRoot(const Position& pos, int depth, int alpha, int beta, Move& best);
  int Negamax(const Position& pos, int alpha, int beta, int depth, int ply, bool null_allowed, bool cut_node);
  int Quiescence(const Position& pos, int alpha, int beta, int ply, int quiescence_ply);
  bool ProbeTable(const Position& pos, int alpha, int beta, int depth, int ply, bool may_cut, Move& table_move,
                  int& score) const;
  bool NullMoveCutoff(const Position& pos, int beta, int depth, int ply, int& score);
  bool TranspositionCutoff(const Position& pos, const MoveList& moves, const int* categories, int beta, int depth,
                           int ply, int& score);
  bool MultiCut(const Position& pos, MoveList& moves, int* keys, int* categories, int beta, int depth, int ply);
  // Returns the depth (in sixteenths of a ply) at which moves' i-th, m
  // (ordering key and category given), is searched below a node of depth:
  // its realization-probability charge, or a ply less the late-move
  // reductions; nullopt when it is pruned (futile: the node stands too far
  // below alpha for a quiet move; have_score: a move was searched).
  std::optional<int> ChildDepth(Move m, int i, int key, int category, int depth, bool pv_node, bool futile,
                                bool have_score) const;
  int SearchChild(const Position& child, bool first, int alpha, int beta, int depth, int full_depth, int ply,
                  bool child_cut);
  bool EndsHere(const Position& child, Color mover, int ply, int& score) const;
  bool IsRepetitionDraw() const;
  bool CanUniteNow(const Position& pos) const;
  void OrderMoves(const Position& pos, MoveList& moves, int* keys, int* categories, Move table_move, int ply) const;
  void RewardCutoff(Color us, Move move, int depth, int ply, const MoveList& moves, int tried);
  bool OutOfBudget();
  void PushFrame(const Position& child, Move move);

  const int index_;
  const SearchOptions& options_;
  const EvalWeights& weights_;
  TranspositionTable& table_;
  SearchingNow* const searching_;
  const std::atomic<bool>& stop_requested_;
  const std::atomic<bool>& stop_all_;
  int move_cost_[kNumMoveCategories];
  int order_key_[kNumMoveCategories];
  Move killers_[kMaxPly][2];
  int history_[2][kNumSquares][kNumSquares];
  int tries_[2][kNumSquares][kNumSquares];  // relative history's denominator (the butterfly board)
  Move pv_[kMaxPly + 1][kMaxPly + 1];
  int pv_length_[kMaxPly + 1];

  // The current search.
  std::vector<Frame> frames_;
  int root_frame_ = 0;
  int root_depth_ = 0;  // the iteration's depth, plies
  int root_game_ply_ = 0;
  Rules rules_;
  SearchLimits limits_;
  std::chrono::steady_clock::time_point start_;
  int64_t nodes_ = 0;
  bool stopped_ = false;
  bool can_stop_ = false;
};

}  // namespace loa::ab
