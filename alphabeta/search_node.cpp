// The node-level parts of the alpha-beta search: quiescence, the table's
// probe, null move, enhanced transposition cutoffs, multi-cut, game ends
// and repetitions, move ordering, the history's rewards, the time budget.

#include <algorithm>

#include "alphabeta/search_worker.h"
#include "core/bitboard.h"

namespace loa::ab {

int SearchWorker::Quiescence(const Position& pos, int alpha, int beta, int ply, int quiescence_ply) {
  if (options_.leaf_win_check && CanUniteNow(pos)) return kWinScore - (ply + 1);
  const bool deeper = quiescence_ply < kMaxQuiescencePlies && ply + 1 < kMaxPly;
  // Threatened with a union on the opponent's next move: every move is
  // tried, and standing pat is no option.
  const bool threatened = options_.quiescence_threats && deeper && CanUniteNow(pos.Apply(Move::Pass()));
  const int stand_pat = StaticScore(pos, weights_);
  if (!threatened && (stand_pat >= beta || !deeper)) return stand_pat;
  if (!threatened) alpha = std::max(alpha, stand_pat);
  int best = threatened ? -kWinScore + ply + 2 : stand_pat;  // no parry: the union next move
  const Color us = pos.side_to_move();
  const Bitboard enemy = pos.pieces(Opponent(us));
  const int enemy_groups = CountGroups(enemy);
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves) {
    // Only captures that cut an enemy group in two or more, unless threatened.
    if (!threatened && (!m.is_capture() || CountGroups(enemy & ~SquareBB(m.to())) <= enemy_groups)) continue;
    if (OutOfBudget()) break;  // as in Negamax: before counting
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

bool SearchWorker::ProbeTable(const Position& pos, int alpha, int beta, int depth, int ply, bool may_cut,
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

bool SearchWorker::NullMoveCutoff(const Position& pos, int beta, int depth, int ply, int& score) {
  if (!options_.null_move || depth < kNullMoveMinDepth || IsDecisiveScore(beta) || StaticScore(pos, weights_) < beta)
    return false;
  const Position null_position = pos.Apply(Move::Pass());
  frames_.push_back({null_position.hash(), int(frames_.size())});  // no repetition across a null move
  const int reduction =
      options_.adaptive_null_move && depth > kNullMoveDeepDepth ? kNullMoveDeepReduction : kNullMoveReduction;
  score = -Negamax(null_position, -beta, -beta + 1, depth - kOnePly - reduction, ply + 1, false, false);
  frames_.pop_back();
  if (stopped_ || score < beta) return false;
  if (IsDecisiveScore(score)) score = beta;  // a win found after a pass proves nothing
  return true;
}

bool SearchWorker::TranspositionCutoff(const Position& pos, const MoveList& moves, const int* categories, int beta,
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

bool SearchWorker::MultiCut(const Position& pos, MoveList& moves, int* keys, int* categories, int beta, int depth,
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

bool SearchWorker::EndsHere(const Position& child, Color mover, int ply, int& score) const {
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

bool SearchWorker::CanUniteNow(const Position& pos) const {
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

bool SearchWorker::IsRepetitionDraw() const {
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

void SearchWorker::OrderMoves(const Position& pos, MoveList& moves, int* keys, int* categories, Move table_move,
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

void SearchWorker::RewardCutoff(Color us, Move move, int depth, int ply, const MoveList& moves, int tried) {
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

bool SearchWorker::OutOfBudget() {
  if (stopped_) return true;
  if (!can_stop_) return false;
  if (stop_all_.load(std::memory_order_relaxed)) return stopped_ = true;
  if (index_ > 0) return false;
  if (stop_requested_.load(std::memory_order_relaxed)) return stopped_ = true;
  if (limits_.nodes > 0 && nodes_ >= limits_.nodes) return stopped_ = true;
  if (limits_.seconds > 0 && (nodes_ & (kClockCheckNodes - 1)) == 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= limits_.seconds)
    return stopped_ = true;
  return false;
}

void SearchWorker::PushFrame(const Position& child, Move move) {
  frames_.push_back({child.hash(), move.is_capture() ? int(frames_.size()) : frames_.back().irreversible});
}

}  // namespace loa::ab
