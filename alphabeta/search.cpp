#include "alphabeta/search.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/bitboard.h"

namespace loa::ab {
namespace {

constexpr int kInfinity = kWinScore + 1;

// Depths are counted in sixteenths of a ply, so that realization-probability
// search can charge a move part of a ply or more than one.
constexpr int kOnePly = 16;

// Null-move pruning (Donninger 1993), as MIA uses it (Winands 2004): the
// depth reduction R and the least remaining depth at which it is tried.
constexpr int kNullMoveReduction = 2 * kOnePly;
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
int LogReduction(int depth, int i) {
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

// Quiescence: at most this many group-cutting captures past the horizon.
constexpr int kMaxQuiescencePlies = 2;

// Aspiration windows: from kAspirationMinDepth on, the root is searched with
// a window of this half-width around the last iteration's score, and again
// with the failing side open when the score falls outside.
constexpr int kAspirationMinDepth = 4;
constexpr int kAspirationWindow = 40;

// The clock is read once every this many nodes (a power of two).
constexpr int64_t kClockCheckNodes = 1024;
// With a time limit no new iteration starts after this share of it: the next
// one usually takes longer than all the earlier ones together.
constexpr double kIterationStartFraction = 0.5;

// Move-ordering keys: the table move, then captures (where realization
// probability is off), then the two killers, then the rest by history score
// (kept below kHistoryLimit) or, with realization probability, by category
// probability and relative history (each below kOrderingUnit).
constexpr int kTableMoveKey = 1 << 30;
constexpr int kCaptureKey = 1 << 28;
constexpr int kKillerKey[2] = {1 << 27, 1 << 26};
constexpr int kHistoryLimit = 1 << 24;
constexpr int kOrderingUnit = 1 << 12;

// Returns a score as stored in the table: wins counted from this node.
int ScoreToTable(int score, int ply) {
  if (score > kWinScore - kMaxPly) return score + ply;
  if (score < -kWinScore + kMaxPly) return score - ply;
  return score;
}

// Returns a table score as seen from a node at ply.
int ScoreFromTable(int score, int ply) {
  if (score > kWinScore - kMaxPly) return score - ply;
  if (score < -kWinScore + kMaxPly) return score + ply;
  return score;
}

// Moves the highest-keyed move of moves[i..] to position i; ties keep order.
void PickNext(MoveList& moves, int* keys, int* categories, int i) {
  int best = i;
  for (int j = i + 1; j < moves.size(); ++j)
    if (keys[j] > keys[best]) best = j;
  std::swap(moves[i], moves[best]);
  std::swap(keys[i], keys[best]);
  std::swap(categories[i], categories[best]);
}

}  // namespace

SearchOptions SearchOptions::Version(int version) {
  SearchOptions options;
  if (version <= 2) options.late_move_pruning = false;
  if (version == 1) {
    options.quiescence = false;
    options.enhanced_transposition_cutoffs = false;
    options.multi_cut = false;
    options.relative_history = false;
  }
  return options;
}

SearchOptions SearchOptions::Plain() {
  SearchOptions options = Version(1);
  options.null_move = false;
  options.late_move_reductions = false;
  options.leaf_win_check = false;
  options.hash_megabytes = 1;
  return options;
}

// One thread's search: its killers, history, path and principal variation;
// the table is the searcher's, shared.
class AlphaBeta::Worker {
 public:
  Worker(int index, const AlphaBeta& owner, TranspositionTable& table)
      : index_(index), owner_(owner), options_(owner.options_), weights_(owner.weights_), table_(table) {
    const CategoryModel& model = owner.categories_;
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
  const AlphaBeta& owner_;
  const SearchOptions& options_;
  const EvalWeights& weights_;
  TranspositionTable& table_;
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
  int root_game_ply_ = 0;
  Rules rules_;
  SearchLimits limits_;
  std::chrono::steady_clock::time_point start_;
  int64_t nodes_ = 0;
  bool stopped_ = false;
  bool can_stop_ = false;
};

AlphaBeta::AlphaBeta(const SearchOptions& options, const EvalWeights& weights, const CategoryModel& categories)
    : options_(options),
      weights_(weights),
      categories_(categories),
      table_(options.transposition_table ? options.hash_megabytes : 0) {
  for (int i = 0; i < std::max(1, options.threads); ++i) workers_.push_back(std::make_unique<Worker>(i, *this, table_));
}

AlphaBeta::~AlphaBeta() = default;

void AlphaBeta::Clear() {
  table_.Clear();
  for (auto& worker : workers_) worker->Clear();
}

SearchResult AlphaBeta::Search(const Game& game, const SearchLimits& limits,
                               const std::function<void(const SearchResult&)>& on_iteration) {
  assert(!game.over());
  stop_requested_.store(false, std::memory_order_relaxed);
  stop_all_.store(false, std::memory_order_relaxed);
  table_.NewSearch();
  const auto start = std::chrono::steady_clock::now();
  for (auto& worker : workers_) worker->Prepare(game, limits, start);
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < workers_.size(); ++i) helpers.emplace_back([&, i] { workers_[i]->Run(game, nullptr); });
  SearchResult result = workers_[0]->Run(game, on_iteration);
  stop_all_.store(true, std::memory_order_relaxed);
  for (auto& helper : helpers) helper.join();
  for (size_t i = 1; i < workers_.size(); ++i) result.nodes += workers_[i]->nodes();
  return result;
}

SearchResult AlphaBeta::Worker::Run(const Game& game, const std::function<void(const SearchResult&)>& on_iteration) {
  const Position& root = game.position();
  SearchResult result;
  const int max_depth = limits_.depth > 0 ? std::min(limits_.depth, kMaxSearchDepth) : kMaxSearchDepth;
  // Helpers: every other one a ply ahead, so that the threads spread over two depths.
  for (int depth = 1 + (index_ & 1); depth <= max_depth; ++depth) {
    can_stop_ = depth > 1 || index_ > 0;  // the main worker always finishes its first iteration
    Move best;
    const int score = AspirationSearch(root, depth, result.score, best);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (stopped_) {
      // A move searched in full in the unfinished iteration is at least as good.
      if (!best.is_null() && best != result.best) {
        result.best = best;
        result.score = score;
        result.pv.assign(1, best);
      }
      result.nodes = nodes_;
      result.seconds = seconds;
      break;
    }
    result.best = best;
    result.score = score;
    result.depth = depth;
    result.nodes = nodes_;
    result.seconds = seconds;
    result.pv.assign(pv_[0], pv_[0] + pv_length_[0]);
    if (on_iteration) on_iteration(result);
    if (score > kWinScore - kMaxPly && kWinScore - score <= depth) break;  // a win inside the horizon
    if (index_ == 0 && limits_.seconds > 0 && seconds >= limits_.seconds * kIterationStartFraction) break;
  }
  assert(index_ > 0 || (!result.best.is_null() && root.IsLegal(result.best)));
  return result;
}

int AlphaBeta::Worker::AspirationSearch(const Position& pos, int depth, int previous, Move& best) {
  int alpha = -kInfinity, beta = kInfinity;
  if (options_.aspiration_windows && depth >= kAspirationMinDepth && !IsDecisiveScore(previous)) {
    alpha = previous - kAspirationWindow;
    beta = previous + kAspirationWindow;
  }
  for (;;) {
    Move found;
    const int score = SearchRoot(pos, depth, alpha, beta, found);
    if (!found.is_null()) best = found;  // a move that beat alpha: at least as good as any other
    if (stopped_ || (score > alpha && score < beta)) return score;
    // Outside the window: search again with that side open.
    if (score <= alpha)
      alpha = -kInfinity;
    else
      beta = kInfinity;
  }
}

int AlphaBeta::Worker::SearchRoot(const Position& pos, int depth, int alpha, int beta, Move& best) {
  const int original_alpha = alpha;
  pv_length_[0] = 0;
  ++nodes_;
  const Color us = pos.side_to_move();
  MoveList moves;
  pos.GenerateMoves(moves);
  Move table_move;
  TTEntry entry;
  if (options_.transposition_table && table_.Probe(pos.hash(), entry)) table_move = Move::FromRaw(entry.move);
  int keys[kMaxMoves], categories[kMaxMoves];
  OrderMoves(pos, moves, keys, categories, table_move, 0);
  // Every root move is searched a full ply deep.
  const int child_depth = depth * kOnePly - kOnePly;
  for (int i = 0; i < moves.size(); ++i) {
    if (options_.move_ordering) PickNext(moves, keys, categories, i);
    const Move m = moves[i];
    const Position child = pos.Apply(m);
    PushFrame(child, m);
    int score;
    pv_length_[1] = 1;
    if (!EndsHere(child, us, 1, score))
      score = SearchChild(child, i == 0, alpha, beta, child_depth, child_depth, 0, true);
    frames_.pop_back();
    if (stopped_) break;
    if (score > alpha) {
      alpha = score;
      best = m;
      pv_[0][0] = m;
      std::copy(pv_[1] + 1, pv_[1] + pv_length_[1], pv_[0] + 1);
      pv_length_[0] = std::max(1, pv_length_[1]);
      if (alpha >= beta) break;
    }
  }
  if (options_.transposition_table && !stopped_ && alpha > original_alpha && alpha < beta)
    table_.Store(pos.hash(), ScoreToTable(alpha, 0), best, depth * kOnePly, Bound::kExact);
  return alpha;
}

int AlphaBeta::Worker::Negamax(const Position& pos, int alpha, int beta, int depth, int ply, bool null_allowed,
                               bool cut_node) {
  pv_length_[ply] = ply;
  ++nodes_;
  if (OutOfBudget()) return 0;
  if (depth <= 0 || ply >= kMaxPly) {
    if (options_.quiescence && ply < kMaxPly) return Quiescence(pos, alpha, beta, ply, 0);
    if (options_.leaf_win_check && CanUniteNow(pos)) return kWinScore - (ply + 1);
    return StaticScore(pos, weights_);
  }
  // Mate-distance pruning: no result here beats a win on the next ply.
  alpha = std::max(alpha, -kWinScore + ply);
  beta = std::min(beta, kWinScore - ply - 1);
  if (alpha >= beta) return alpha;
  const bool pv_node = beta - alpha > 1;
  const Color us = pos.side_to_move();

  Move table_move;
  int score;
  if (ProbeTable(pos, alpha, beta, depth, ply, !pv_node, table_move, score)) return score;
  bool futile = false;
  if (options_.futility && !pv_node && depth <= kFutilityMaxDepth && !IsDecisiveScore(alpha) &&
      !IsDecisiveScore(beta)) {
    const int static_score = StaticScore(pos, weights_), margin = kFutilityMargin * depth / kOnePly;
    // Not where the opponent threatens to unite: standing pat would miss it.
    if (static_score - margin >= beta && !CanUniteNow(pos.Apply(Move::Pass()))) return static_score;
    futile = depth <= kFutilityMoveDepth && static_score + margin <= alpha;
  }
  if (null_allowed && !pv_node && NullMoveCutoff(pos, beta, depth, ply, score)) return score;
  if (stopped_) return 0;

  MoveList moves;
  pos.GenerateMoves(moves);
  int keys[kMaxMoves], categories[kMaxMoves];
  OrderMoves(pos, moves, keys, categories, table_move, ply);
  if (!pv_node && TranspositionCutoff(pos, moves, categories, beta, depth, ply, score)) return score;
  if (!pv_node && cut_node && MultiCut(pos, moves, keys, categories, beta, depth, ply)) return beta;
  if (stopped_) return 0;
  const int original_alpha = alpha;
  int best_score = -kInfinity;
  Move best_move;
  for (int i = 0; i < moves.size(); ++i) {
    if (options_.move_ordering) PickNext(moves, keys, categories, i);
    const Move m = moves[i];
    const Position child = pos.Apply(m);
    PushFrame(child, m);
    pv_length_[ply + 1] = ply + 1;
    if (!EndsHere(child, us, ply + 1, score)) {
      int child_depth = depth - kOnePly;
      const bool late_quiet = i >= 1 && !m.is_capture() && keys[i] < kKillerKey[1];
      if (options_.realization_probability) {
        // The first move is never charged more than a ply (ERPS); a move
        // charged more is searched again a ply deep when it beats alpha.
        const int cost = move_cost_[categories[i]];
        child_depth = depth - (i == 0 ? std::min(cost, kOnePly) : cost);
      } else if (late_quiet && futile && best_score > -kInfinity) {
        frames_.pop_back();
        continue;  // pruned: a quiet move cannot lift this node to alpha
      } else if (late_quiet && options_.late_move_pruning && !pv_node && depth <= options_.lmp_depth * kOnePly &&
                 i >= options_.lmp_base + kLmpPerPly2 * (depth / kOnePly) * (depth / kOnePly) &&
                 best_score > -kInfinity) {
        frames_.pop_back();
        continue;  // pruned: a late quiet move this near the horizon
      } else if (late_quiet && options_.log_reductions && depth >= 2 * kOnePly && i >= kLogReductionFirstMove) {
        const int reduction = LogReduction(depth, i) - (pv_node ? kOnePly : 0);
        child_depth -= std::clamp(reduction, 0, depth - 2 * kOnePly);
      } else if (late_quiet && options_.late_move_reductions && depth >= kLmrMinDepth && i >= kLmrFullDepthMoves) {
        child_depth -= kOnePly * (1 + (i >= kLmrDeepMoveIndex && depth >= kLmrDeepMinDepth));
      }
      score = SearchChild(child, i == 0, alpha, beta, child_depth, depth - kOnePly, ply, pv_node || !cut_node);
    }
    frames_.pop_back();
    if (stopped_) return 0;
    if (score <= best_score) continue;
    best_score = score;
    best_move = m;
    if (score <= alpha) continue;
    alpha = score;
    pv_[ply][ply] = m;
    std::copy(pv_[ply + 1] + ply + 1, pv_[ply + 1] + pv_length_[ply + 1], pv_[ply] + ply + 1);
    pv_length_[ply] = std::max(ply + 1, pv_length_[ply + 1]);
    if (alpha >= beta) {
      if (!m.is_capture()) RewardCutoff(us, m, depth, ply, moves, i);
      break;
    }
  }
  if (options_.transposition_table) {
    const Bound bound = best_score >= beta            ? Bound::kLower
                        : best_score > original_alpha ? Bound::kExact
                                                      : Bound::kUpper;
    table_.Store(pos.hash(), ScoreToTable(best_score, ply), best_move, depth, bound);
  }
  return best_score;
}

int AlphaBeta::Worker::Quiescence(const Position& pos, int alpha, int beta, int ply, int quiescence_ply) {
  if (options_.leaf_win_check && CanUniteNow(pos)) return kWinScore - (ply + 1);
  const int stand_pat = StaticScore(pos, weights_);
  if (stand_pat >= beta || quiescence_ply >= kMaxQuiescencePlies || ply + 1 >= kMaxPly) return stand_pat;
  alpha = std::max(alpha, stand_pat);
  int best = stand_pat;
  const Color us = pos.side_to_move();
  const Bitboard enemy = pos.pieces(Opponent(us));
  const int enemy_groups = CountGroups(enemy);
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves) {
    // Only captures that cut an enemy group in two or more.
    if (!m.is_capture() || CountGroups(enemy & ~SquareBB(m.to())) <= enemy_groups) continue;
    const Position child = pos.Apply(m);
    PushFrame(child, m);
    ++nodes_;
    int score;
    if (!EndsHere(child, us, ply + 1, score)) score = -Quiescence(child, -beta, -alpha, ply + 1, quiescence_ply + 1);
    frames_.pop_back();
    if (score <= best) continue;
    best = score;
    if (score <= alpha) continue;
    alpha = score;
    if (alpha >= beta) break;
  }
  return best;
}

bool AlphaBeta::Worker::ProbeTable(const Position& pos, int alpha, int beta, int depth, int ply, bool may_cut,
                                   Move& table_move, int& score) const {
  TTEntry e;
  if (!options_.transposition_table || !table_.Probe(pos.hash(), e)) return false;
  table_move = Move::FromRaw(e.move);
  // Another thread's torn slot reads as a miss; a slot of another position
  // with the same hash could still name a move that is not legal here.
  if (!table_move.is_null() && !pos.IsLegal(table_move)) table_move = Move();
  score = ScoreFromTable(e.score, ply);
  return may_cut && e.depth >= depth &&
         (e.bound == Bound::kExact || (e.bound == Bound::kLower && score >= beta) ||
          (e.bound == Bound::kUpper && score <= alpha));
}

bool AlphaBeta::Worker::NullMoveCutoff(const Position& pos, int beta, int depth, int ply, int& score) {
  if (!options_.null_move || depth < kNullMoveMinDepth || IsDecisiveScore(beta) || StaticScore(pos, weights_) < beta)
    return false;
  const Position null_position = pos.Apply(Move::Pass());
  frames_.push_back({null_position.hash(), int(frames_.size())});  // no repetition across a null move
  score = -Negamax(null_position, -beta, -beta + 1, depth - kOnePly - kNullMoveReduction, ply + 1, false, false);
  frames_.pop_back();
  if (stopped_ || score < beta) return false;
  if (IsDecisiveScore(score)) score = beta;  // a win found after a pass proves nothing
  return true;
}

bool AlphaBeta::Worker::TranspositionCutoff(const Position& pos, const MoveList& moves, const int* categories, int beta,
                                            int depth, int ply, int& score) {
  if (!options_.enhanced_transposition_cutoffs || !options_.transposition_table || depth < kEtcMinDepth) return false;
  const Color us = pos.side_to_move();
  for (int i = 0; i < moves.size(); ++i) {
    const Move m = moves[i];
    const Position child = pos.Apply(m);
    TTEntry e;
    if (!table_.Probe(child.hash(), e) || (e.bound != Bound::kUpper && e.bound != Bound::kExact)) continue;
    const int cost = options_.realization_probability ? std::min(move_cost_[categories[i]], kOnePly) : kOnePly;
    if (e.depth < depth - cost) continue;
    const int value = -ScoreFromTable(e.score, ply + 1);
    if (value < beta) continue;
    // The table knows nothing of how the game ends here or of repetitions.
    PushFrame(child, m);
    int ends_score;
    const bool ends = EndsHere(child, us, ply + 1, ends_score);
    frames_.pop_back();
    if (ends) continue;
    score = value;
    return true;
  }
  return false;
}

bool AlphaBeta::Worker::MultiCut(const Position& pos, MoveList& moves, int* keys, int* categories, int beta, int depth,
                                 int ply) {
  if (!options_.multi_cut || depth < kMultiCutMinDepth || IsDecisiveScore(beta)) return false;
  const Color us = pos.side_to_move();
  int cuts = 0;
  for (int i = 0; i < std::min(kMultiCutMoves, moves.size()); ++i) {
    if (options_.move_ordering) PickNext(moves, keys, categories, i);
    const Position child = pos.Apply(moves[i]);
    PushFrame(child, moves[i]);
    int score;
    if (!EndsHere(child, us, ply + 1, score))
      score = -Negamax(child, -beta, -beta + 1, depth - kOnePly - kMultiCutReduction, ply + 1, true, false);
    frames_.pop_back();
    if (stopped_) return false;
    if (score >= beta && ++cuts >= kMultiCutCuts) return true;
  }
  return false;
}

int AlphaBeta::Worker::SearchChild(const Position& child, bool first, int alpha, int beta, int depth, int full_depth,
                                   int ply, bool child_cut) {
  if (first) return -Negamax(child, -beta, -alpha, depth, ply + 1, true, !child_cut);
  // A null window first (principal-variation search), at the move's own
  // depth; a move searched shallower than a ply below this node is searched
  // again at that depth when it beats alpha, then with the full window.
  int score = -Negamax(child, -alpha - 1, -alpha, depth, ply + 1, true, child_cut);
  if (score > alpha && depth < full_depth && !stopped_) {
    depth = full_depth;
    score = -Negamax(child, -alpha - 1, -alpha, depth, ply + 1, true, child_cut);
  }
  if (score > alpha && score < beta && !stopped_) score = -Negamax(child, -beta, -alpha, depth, ply + 1, true, false);
  return score;
}

bool AlphaBeta::Worker::EndsHere(const Position& child, Color mover, int ply, int& score) const {
  const Verdict verdict = UnitedVerdict(child, mover, rules_.simultaneous);
  if (verdict.over()) {
    score = verdict.result == Result::kDraw   ? 0
            : verdict.result == WinFor(mover) ? kWinScore - ply
                                              : -(kWinScore - ply);
    return true;
  }
  score = 0;
  if (IsRepetitionDraw()) return true;
  return rules_.max_plies > 0 && root_game_ply_ + ply >= rules_.max_plies;
}

bool AlphaBeta::Worker::CanUniteNow(const Position& pos) const {
  const Color us = pos.side_to_move();
  // One move takes a piece from its group (which cannot merge groups) and
  // joins at most four groups around its new square: more than five groups
  // cannot become one.
  constexpr int kMaxGroupsUnitedByOneMove = 5;
  if (CountGroups(pos.pieces(us)) > kMaxGroupsUnitedByOneMove) return false;
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves)
    if (UnitedVerdict(pos.Apply(m), us, rules_.simultaneous).result == WinFor(us)) return true;
  return false;
}

bool AlphaBeta::Worker::IsRepetitionDraw() const {
  // The rules draw at the third occurrence; inside the tree a second one is
  // already a draw, since the side that repeated could repeat again.
  const int top = int(frames_.size()) - 1;
  const uint64_t hash = frames_[top].hash;
  int earlier = 0;
  for (int j = top - 2; j >= frames_[top].irreversible; j -= 2) {
    if (frames_[j].hash != hash) continue;
    if (j > root_frame_ || ++earlier >= 2) return true;
  }
  return false;
}

void AlphaBeta::Worker::OrderMoves(const Position& pos, MoveList& moves, int* keys, int* categories, Move table_move,
                                   int ply) const {
  const Color us = pos.side_to_move();
  const bool by_category = options_.realization_probability;
  if (by_category) {
    const MoveCategorizer categorizer(pos);
    for (int i = 0; i < moves.size(); ++i) categories[i] = categorizer.Category(moves[i]);
  } else {
    std::fill(categories, categories + moves.size(), 0);
  }
  for (int i = 0; i < moves.size(); ++i) {
    const Move m = moves[i];
    int history = history_[us][m.from()][m.to()];
    if (options_.relative_history) {
      // The share of its tries in which the move cut off, in kOrderingUnit.
      const int64_t cutoffs = history, tries = tries_[us][m.from()][m.to()];
      history = int(cutoffs * (kOrderingUnit - 1) / (cutoffs + tries + 1));
    }
    if (m == table_move)
      keys[i] = kTableMoveKey;
    else if (m.is_capture() && !by_category)
      keys[i] = kCaptureKey + history;
    else if (m == killers_[ply][0])
      keys[i] = kKillerKey[0];
    else if (m == killers_[ply][1])
      keys[i] = kKillerKey[1];
    else
      keys[i] = history + (by_category ? order_key_[categories[i]] : 0);
  }
}

void AlphaBeta::Worker::RewardCutoff(Color us, Move move, int depth, int ply, const MoveList& moves, int tried) {
  if (killers_[ply][0] != move) {
    killers_[ply][1] = killers_[ply][0];
    killers_[ply][0] = move;
  }
  const int plies = std::max(1, depth / kOnePly);
  const int bonus = plies * plies;
  int& h = history_[us][move.from()][move.to()];
  h += bonus;
  bool halve = h >= kHistoryLimit;
  if (options_.relative_history) {
    // The quiet moves tried before the one that cut off: tries that did not.
    for (int i = 0; i < tried; ++i) {
      if (moves[i].is_capture()) continue;
      int& t = tries_[us][moves[i].from()][moves[i].to()];
      t += bonus;
      halve |= t >= kHistoryLimit;
    }
  }
  if (!halve) return;
  for (int(*side)[kNumSquares] : {history_[0], history_[1], tries_[0], tries_[1]})
    for (int from = 0; from < kNumSquares; ++from)
      for (int to = 0; to < kNumSquares; ++to) side[from][to] /= 2;
}

bool AlphaBeta::Worker::OutOfBudget() {
  if (stopped_) return true;
  if (!can_stop_) return false;
  if (owner_.stop_all_.load(std::memory_order_relaxed)) return stopped_ = true;
  if (index_ > 0) return false;
  if (owner_.stop_requested_.load(std::memory_order_relaxed)) return stopped_ = true;
  if (limits_.nodes > 0 && nodes_ >= limits_.nodes) return stopped_ = true;
  if (limits_.seconds > 0 && (nodes_ & (kClockCheckNodes - 1)) == 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= limits_.seconds)
    return stopped_ = true;
  return false;
}

void AlphaBeta::Worker::PushFrame(const Position& child, Move move) {
  frames_.push_back({child.hash(), move.is_capture() ? int(frames_.size()) : frames_.back().irreversible});
}

}  // namespace loa::ab
