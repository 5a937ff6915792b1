#include "alphabeta/search.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "core/bitboard.h"

namespace loa::ab {
namespace {

constexpr int kInfinity = kWinScore + 1;

// Null-move pruning (Donninger 1993), as MIA uses it (Winands 2004): the
// depth reduction R and the least remaining depth at which it is tried.
constexpr int kNullMoveReduction = 2;
constexpr int kNullMoveMinDepth = 3;

// Late-move reductions (as in Stockfish and Fruit): quiet moves after the
// first kLmrFullDepthMoves, at kLmrMinDepth or more, are searched one ply
// shallower (two from kLmrDeepMoveIndex on at kLmrDeepMinDepth or more) and
// searched again at full depth when they beat alpha.
constexpr int kLmrMinDepth = 3;
constexpr int kLmrFullDepthMoves = 3;
constexpr int kLmrDeepMoveIndex = 10;
constexpr int kLmrDeepMinDepth = 6;

// Aspiration windows: from kAspirationMinDepth on, the root is searched with
// a window of this half-width around the last iteration's score, and again
// with the failing side open when the score falls outside (a common
// setting; Stockfish starts near 10 centipawns, our scale is coarser).
constexpr int kAspirationMinDepth = 4;
constexpr int kAspirationWindow = 40;

// The clock is read once every this many nodes (a power of two).
constexpr int64_t kClockCheckNodes = 1024;
// With a time limit no new iteration starts after this share of it: the next
// one usually takes longer than all the earlier ones together.
constexpr double kIterationStartFraction = 0.5;

// Move-ordering keys: the table move, then captures, then the two killers,
// then the rest by history score (kept below kHistoryLimit).
constexpr int kTableMoveKey = 1 << 30;
constexpr int kCaptureKey = 1 << 28;
constexpr int kKillerKey[2] = {1 << 27, 1 << 26};
constexpr int kHistoryLimit = 1 << 24;

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
void PickNext(MoveList& moves, int* keys, int i) {
  int best = i;
  for (int j = i + 1; j < moves.size(); ++j)
    if (keys[j] > keys[best]) best = j;
  std::swap(moves[i], moves[best]);
  std::swap(keys[i], keys[best]);
}

}  // namespace

AlphaBeta::AlphaBeta(const SearchOptions& options, const EvalWeights& weights)
    : options_(options), weights_(weights), table_(options.transposition_table ? options.hash_megabytes : 0) {
  Clear();
}

void AlphaBeta::Clear() {
  table_.Clear();
  for (auto& pair : killers_) pair[0] = pair[1] = Move();
  std::memset(history_, 0, sizeof(history_));
}

SearchResult AlphaBeta::Search(const Game& game, const SearchLimits& limits,
                               const std::function<void(const SearchResult&)>& on_iteration) {
  assert(!game.over());
  rules_ = game.rules();
  limits_ = limits;
  start_ = std::chrono::steady_clock::now();
  nodes_ = 0;
  stopped_ = false;
  stop_requested_.store(false, std::memory_order_relaxed);
  frames_.clear();
  Position replay = game.start();
  frames_.push_back({replay.hash(), 0});
  for (Move m : game.moves()) {
    replay = replay.Apply(m);
    PushFrame(replay, m);
  }
  root_frame_ = int(frames_.size()) - 1;
  root_game_ply_ = game.ply();
  table_.NewSearch();
  for (auto& pair : killers_) pair[0] = pair[1] = Move();
  for (auto& side : history_)
    for (auto& row : side)
      for (int& h : row) h /= 2;

  const Position& root = game.position();
  SearchResult result;
  const int max_depth = limits.depth > 0 ? std::min(limits.depth, kMaxSearchDepth) : kMaxSearchDepth;
  for (int depth = 1; depth <= max_depth; ++depth) {
    can_stop_ = depth > 1;  // the first iteration always finishes
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
    if (limits.seconds > 0 && seconds >= limits.seconds * kIterationStartFraction) break;
  }
  assert(!result.best.is_null() && root.IsLegal(result.best));
  return result;
}

int AlphaBeta::AspirationSearch(const Position& pos, int depth, int previous, Move& best) {
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

int AlphaBeta::SearchRoot(const Position& pos, int depth, int alpha, int beta, Move& best) {
  const int original_alpha = alpha;
  pv_length_[0] = 0;
  ++nodes_;
  const Color us = pos.side_to_move();
  MoveList moves;
  pos.GenerateMoves(moves);
  Move table_move;
  if (options_.transposition_table)
    if (const TTEntry* e = table_.Probe(pos.hash())) table_move = Move::FromRaw(e->move);
  int keys[kMaxMoves];
  OrderMoves(pos, moves, keys, table_move, 0);
  for (int i = 0; i < moves.size(); ++i) {
    if (options_.move_ordering) PickNext(moves, keys, i);
    const Move m = moves[i];
    const Position child = pos.Apply(m);
    PushFrame(child, m);
    int score;
    pv_length_[1] = 1;
    if (!EndsHere(child, us, 1, score)) score = SearchChild(child, i == 0, alpha, beta, depth, 0, 0);
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
    table_.Store(pos.hash(), ScoreToTable(alpha, 0), best, depth, Bound::kExact);
  return alpha;
}

int AlphaBeta::Negamax(const Position& pos, int alpha, int beta, int depth, int ply, bool null_allowed) {
  pv_length_[ply] = ply;
  ++nodes_;
  if (OutOfBudget()) return 0;
  if (depth <= 0 || ply >= kMaxPly) {
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
  if (null_allowed && !pv_node && NullMoveCutoff(pos, beta, depth, ply, score)) return score;
  if (stopped_) return 0;

  MoveList moves;
  pos.GenerateMoves(moves);
  int keys[kMaxMoves];
  OrderMoves(pos, moves, keys, table_move, ply);
  const int original_alpha = alpha;
  int best_score = -kInfinity;
  Move best_move;
  for (int i = 0; i < moves.size(); ++i) {
    if (options_.move_ordering) PickNext(moves, keys, i);
    const Move m = moves[i];
    const Position child = pos.Apply(m);
    PushFrame(child, m);
    pv_length_[ply + 1] = ply + 1;
    if (!EndsHere(child, us, ply + 1, score)) {
      int reduction = 0;
      if (options_.late_move_reductions && depth >= kLmrMinDepth && i >= kLmrFullDepthMoves && !m.is_capture() &&
          keys[i] < kKillerKey[1])
        reduction = 1 + (i >= kLmrDeepMoveIndex && depth >= kLmrDeepMinDepth);
      score = SearchChild(child, i == 0, alpha, beta, depth, reduction, ply);
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
      if (!m.is_capture()) RewardCutoff(us, m, depth, ply);
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

bool AlphaBeta::ProbeTable(const Position& pos, int alpha, int beta, int depth, int ply, bool may_cut, Move& table_move,
                           int& score) const {
  if (!options_.transposition_table) return false;
  const TTEntry* e = table_.Probe(pos.hash());
  if (!e) return false;
  table_move = Move::FromRaw(e->move);
  score = ScoreFromTable(e->score, ply);
  return may_cut && e->depth >= depth &&
         (e->bound() == Bound::kExact || (e->bound() == Bound::kLower && score >= beta) ||
          (e->bound() == Bound::kUpper && score <= alpha));
}

bool AlphaBeta::NullMoveCutoff(const Position& pos, int beta, int depth, int ply, int& score) {
  if (!options_.null_move || depth < kNullMoveMinDepth || IsDecisiveScore(beta) || StaticScore(pos, weights_) < beta)
    return false;
  const Position null_position = pos.Apply(Move::Pass());
  frames_.push_back({null_position.hash(), int(frames_.size())});  // no repetition across a null move
  score = -Negamax(null_position, -beta, -beta + 1, depth - 1 - kNullMoveReduction, ply + 1, false);
  frames_.pop_back();
  if (stopped_ || score < beta) return false;
  if (IsDecisiveScore(score)) score = beta;  // a win found after a pass proves nothing
  return true;
}

int AlphaBeta::SearchChild(const Position& child, bool first, int alpha, int beta, int depth, int reduction, int ply) {
  if (first) return -Negamax(child, -beta, -alpha, depth - 1, ply + 1, true);
  // A null window first (principal-variation search), reduced for a late quiet move.
  int score = -Negamax(child, -alpha - 1, -alpha, depth - 1 - reduction, ply + 1, true);
  if (score > alpha && reduction > 0 && !stopped_)
    score = -Negamax(child, -alpha - 1, -alpha, depth - 1, ply + 1, true);
  if (score > alpha && score < beta && !stopped_) score = -Negamax(child, -beta, -alpha, depth - 1, ply + 1, true);
  return score;
}

bool AlphaBeta::EndsHere(const Position& child, Color mover, int ply, int& score) const {
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

bool AlphaBeta::CanUniteNow(const Position& pos) const {
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

bool AlphaBeta::IsRepetitionDraw() const {
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

void AlphaBeta::OrderMoves(const Position& pos, MoveList& moves, int* keys, Move table_move, int ply) const {
  const Color us = pos.side_to_move();
  for (int i = 0; i < moves.size(); ++i) {
    const Move m = moves[i];
    const int history = history_[us][m.from()][m.to()];
    if (m == table_move)
      keys[i] = kTableMoveKey;
    else if (m.is_capture())
      keys[i] = kCaptureKey + history;
    else if (m == killers_[ply][0])
      keys[i] = kKillerKey[0];
    else if (m == killers_[ply][1])
      keys[i] = kKillerKey[1];
    else
      keys[i] = history;
  }
}

void AlphaBeta::RewardCutoff(Color us, Move move, int depth, int ply) {
  if (killers_[ply][0] != move) {
    killers_[ply][1] = killers_[ply][0];
    killers_[ply][0] = move;
  }
  int& h = history_[us][move.from()][move.to()];
  h += depth * depth;
  if (h < kHistoryLimit) return;
  for (auto& side : history_)
    for (auto& row : side)
      for (int& x : row) x /= 2;
}

bool AlphaBeta::OutOfBudget() {
  if (stopped_) return true;
  if (!can_stop_) return false;
  if (stop_requested_.load(std::memory_order_relaxed)) return stopped_ = true;
  if (limits_.nodes > 0 && nodes_ >= limits_.nodes) return stopped_ = true;
  if (limits_.seconds > 0 && (nodes_ & (kClockCheckNodes - 1)) == 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= limits_.seconds)
    return stopped_ = true;
  return false;
}

void AlphaBeta::PushFrame(const Position& child, Move move) {
  frames_.push_back({child.hash(), move.is_capture() ? int(frames_.size()) : frames_.back().irreversible});
}

}  // namespace loa::ab
