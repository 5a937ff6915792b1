#include "alphabeta/search_worker.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "core/bitboard.h"

namespace loa::ab {

SearchResult SearchWorker::Run(const Game& game, const std::function<void(const SearchResult&)>& on_iteration) {
  const Position& root = game.position();
  SearchResult result;
  const int max_depth = limits_.depth > 0 ? std::min(limits_.depth, kMaxSearchDepth) : kMaxSearchDepth;
  // Helpers: every other one a ply ahead, so that the threads spread over two depths.
  for (int depth = 1 + (index_ & 1); depth <= max_depth; ++depth) {
    can_stop_ = depth > 1 || index_ > 0;  // the main worker always finishes its first iteration
    if (OutOfBudget()) break;             // the last iteration ended on the node limit
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
    if (index_ == 0 && limits_.seconds > 0 && seconds >= limits_.seconds * options_.iteration_start) break;
  }
  assert(index_ > 0 || (!result.best.is_null() && root.IsLegal(result.best)));
  return result;
}

int SearchWorker::AspirationSearch(const Position& pos, int depth, int previous, Move& best) {
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

int SearchWorker::SearchRoot(const Position& pos, int depth, int alpha, int beta, Move& best) {
  const int original_alpha = alpha;
  root_depth_ = depth;
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

int SearchWorker::Negamax(const Position& pos, int alpha, int beta, int depth, int ply, bool null_allowed,
                          bool cut_node) {
  pv_length_[ply] = ply;
  if (OutOfBudget()) return 0;  // before counting: a node limit holds exactly
  ++nodes_;
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
  // LOA's check: the opponent unites next move unless this side parries.
  const bool threatened = options_.threat_extension && ply < 2 * root_depth_ && CanUniteNow(pos.Apply(Move::Pass()));
  if (threatened) depth += kOnePly;
  if (options_.internal_reduction && table_move.is_null() && depth >= kInternalReductionMinDepth) depth -= kOnePly;
  bool futile = false;
  if (options_.futility && !pv_node && depth <= kFutilityMaxDepth && !IsDecisiveScore(alpha) &&
      !IsDecisiveScore(beta)) {
    const int static_score = StaticScore(pos, weights_), margin = kFutilityMargin * depth / kOnePly;
    // Not where the opponent threatens to unite: standing pat would miss it.
    if (static_score - margin >= beta && !CanUniteNow(pos.Apply(Move::Pass()))) return static_score;
    futile = depth <= kFutilityMoveDepth && static_score + margin <= alpha;
  }
  if (null_allowed && !pv_node && !threatened && NullMoveCutoff(pos, beta, depth, ply, score)) return score;
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
  SearchingNow* const searching = depth >= kAbdadaMinDepth ? searching_ : nullptr;
  // Searches moves[i]; returns true when the node is done (a cutoff or a stop).
  auto search_move = [&](int i) {
    const Move m = moves[i];
    const Position child = pos.Apply(m);
    PushFrame(child, m);
    pv_length_[ply + 1] = ply + 1;
    int score;
    if (!EndsHere(child, us, ply + 1, score)) {
      const std::optional<int> child_depth =
          ChildDepth(m, i, keys[i], categories[i], depth, pv_node, futile, best_score > -kInfinity);
      if (!child_depth) {
        frames_.pop_back();
        return false;  // pruned
      }
      if (searching) searching->Begin(child.hash());
      score = SearchChild(child, i == 0, alpha, beta, *child_depth, depth - kOnePly, ply, pv_node || !cut_node);
      if (searching) searching->End(child.hash());
    }
    frames_.pop_back();
    if (stopped_) return true;
    if (score <= best_score) return false;
    best_score = score;
    best_move = m;
    if (score <= alpha) return false;
    alpha = score;
    pv_[ply][ply] = m;
    std::copy(pv_[ply + 1] + ply + 1, pv_[ply + 1] + pv_length_[ply + 1], pv_[ply] + ply + 1);
    pv_length_[ply] = std::max(ply + 1, pv_length_[ply + 1]);
    if (alpha < beta) return false;
    if (!m.is_capture()) RewardCutoff(us, m, depth, ply, moves, i);
    return true;
  };
  int put_off[kMaxMoves], num_put_off = 0;
  bool done = false;
  for (int i = 0; i < moves.size() && !done; ++i) {
    if (options_.move_ordering) PickNext(moves, keys, categories, i);
    if (searching && i > 0 && searching->Has(pos.Apply(moves[i]).hash()))
      put_off[num_put_off++] = i;  // another thread is on it: searched last
    else
      done = search_move(i);
  }
  for (int k = 0; k < num_put_off && !done; ++k) done = search_move(put_off[k]);
  if (stopped_) return 0;
  if (options_.transposition_table) {
    const Bound bound = best_score >= beta            ? Bound::kLower
                        : best_score > original_alpha ? Bound::kExact
                                                      : Bound::kUpper;
    table_.Store(pos.hash(), ScoreToTable(best_score, ply), best_move, depth, bound);
  }
  return best_score;
}

std::optional<int> SearchWorker::ChildDepth(Move m, int i, int key, int category, int depth, bool pv_node, bool futile,
                                            bool have_score) const {
  const bool late_quiet = i >= 1 && !m.is_capture() && key < kKillerKey[1];
  if (options_.realization_probability) {
    // The first move is never charged more than a ply (ERPS); a move
    // charged more is searched again a ply deep when it beats alpha.
    const int cost = move_cost_[category];
    return depth - (i == 0 ? std::min(cost, kOnePly) : cost);
  }
  if (late_quiet && futile && have_score) return std::nullopt;  // a quiet move cannot lift this node to alpha
  if (late_quiet && options_.late_move_pruning && !pv_node && depth <= options_.lmp_depth * kOnePly &&
      i >= options_.lmp_base + kLmpPerPly2 * (depth / kOnePly) * (depth / kOnePly) && have_score)
    return std::nullopt;  // a late quiet move this near the horizon
  int child_depth = depth - kOnePly;
  if (late_quiet && options_.log_reductions && depth >= 2 * kOnePly && i >= kLogReductionFirstMove) {
    const int reduction = LogReduction(depth, i) - (pv_node ? kOnePly : 0);
    child_depth -= std::clamp(reduction, 0, depth - 2 * kOnePly);
  } else if (late_quiet && options_.late_move_reductions && depth >= kLmrMinDepth && i >= kLmrFullDepthMoves) {
    const bool good_history = options_.history_reductions && options_.relative_history && key >= kGoodHistory;
    child_depth -= kOnePly * (1 + (i >= kLmrDeepMoveIndex && depth >= kLmrDeepMinDepth) - good_history);
  }
  return child_depth;
}

int SearchWorker::SearchChild(const Position& child, bool first, int alpha, int beta, int depth, int full_depth,
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

}  // namespace loa::ab
