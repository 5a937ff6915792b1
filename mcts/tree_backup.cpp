// The second half of a playout in the search tree (mcts/tree.h): a leaf
// expanded with its evaluation, the MCTS-Solver's proofs, and the values
// backed up along each path, a run of leaves through a node at once.

#include "mcts/tree.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

namespace loa {

void TemperPriors(const float* priors, int n, float temperature, float* out) {
  const float exponent = 1.0f / temperature;
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += out[i] = std::pow(std::max(priors[i], 0.0f), exponent);
  for (int i = 0; i < n; ++i) out[i] = sum > 0 ? out[i] / sum : priors[i];
}

void SearchTree::ExpandAndBackup(const Leaf& leaf, const EvalOutput& eval) {
  TreeScratch scratch;
  ExpandAndBackup(&leaf, &eval, 1, scratch);
}

void SearchTree::ExpandAndBackup(const Leaf* leaves, const EvalOutput* evals, int count, TreeScratch& scratch) {
  for (int i = 0; i < count; ++i) Expand(leaves[i], evals[i]);
  // Each leaf's value at each node of its path, the solver's proofs first.
  std::vector<float>& values = scratch.values;
  std::vector<float>& draws = scratch.draws;
  std::vector<size_t>& offsets = scratch.offsets;
  offsets.resize(size_t(count) + 1);
  offsets[0] = 0;
  for (int i = 0; i < count; ++i) offsets[i + 1] = offsets[i] + leaves[i].path.size();
  values.resize(offsets[count]);
  draws.resize(offsets[count]);
  for (int i = 0; i < count; ++i)
    PathValues(leaves[i].path, -evals[i].Value(), evals[i].wdl[1], true, &values[offsets[i]], &draws[offsets[i]]);
  // Then each node once for the run of consecutive leaves through it (those
  // of one descent below a node are consecutive: the root takes one lock a
  // batch).
  for (int i = 0; i < count; ++i) {
    const std::vector<uint32_t>& path = leaves[i].path;
    for (size_t depth = path.size(); depth-- > 0;) {
      const auto through = [&](int leaf) {
        return leaves[leaf].path.size() > depth && leaves[leaf].path[depth] == path[depth];
      };
      if (i > 0 && through(i - 1)) continue;  // landed with the run of an earlier leaf
      int end = i + 1;
      while (end < count && through(end)) ++end;
      Land(arena_[path[depth]], end - i, [&](int k) {
        const size_t at = offsets[size_t(i + k)] + depth;
        return std::make_pair(values[at], draws[at]);
      });
    }
  }
}

void SearchTree::Expand(const Leaf& leaf, const EvalOutput& eval) {
  Node& node = arena_[leaf.path.back()];  // chunks never move: the reference survives Allocate
  assert(node.current_state() == Node::kPending);
  MoveList moves;
  leaf.position.GenerateMoves(moves);
  assert(eval.num_moves == moves.size());
  // The rules' verdicts first, outside the lock: they cost most.
  const Color mover = leaf.position.side_to_move();
  HashFilter seen = repeatable_filter_;
  for (size_t i = 1; i < leaf.hashes.size(); ++i) seen.Add(leaf.hashes[i]);
  Proven verdicts[kMaxMoves];
  for (int i = 0; i < moves.size(); ++i)
    verdicts[i] = JudgeChild(leaf, seen, moves[i], leaf.position.Apply(moves[i]), mover);
  uint32_t first;
  if (concurrent_) {
    {
      std::lock_guard<SpinLock> lock(allocation_lock_);
      assert(arena_.Fits(uint64_t(arena_.size()) + NodeArena::kChunkSize));
      first = arena_.Claim(moves.size());
    }
    arena_.Fresh(first, moves.size());
  } else {
    first = arena_.Allocate(moves.size());
  }
  float tempered[kMaxMoves];
  const float* priors = eval.priors;
  if (params_.policy_temperature != 1.0f) {
    TemperPriors(eval.priors, moves.size(), params_.policy_temperature, tempered);
    priors = tempered;
  }
  for (int i = 0; i < moves.size(); ++i) {
    Node& child = arena_[first + i];
    child.move = moves[i].raw();
    child.prior = priors[i];
    child.proven.store(verdicts[i], std::memory_order_relaxed);
    if (verdicts[i] != Proven::kUnknown) child.state.store(Node::kTerminal, std::memory_order_relaxed);
  }
  node.first_child = first;
  node.num_children = uint8_t(moves.size());
  if (leaf.path.size() == 1) {
    root_raw_value_ = eval.Value();
    if (noise_) ApplyNoise();
    if (gumbel_simulations_ > 0) DrawGumbel();
  }
  // Publishes the children: selection reads them after seeing kExpanded.
  node.state.store(Node::kExpanded, std::memory_order_release);
}

bool SearchTree::TryProve(Node& node) {
  // Children's results are for this node's side to move.
  int win_plies = -1, draw_plies = -1, loss_plies = -1;
  bool all_proven = true;
  for (int i = 0; i < node.num_children; ++i) {
    const Node& child = arena_[node.first_child + i];
    const Proven proven = child.result();
    const int plies = child.end_plies.load(std::memory_order_relaxed);
    switch (proven) {
      case Proven::kWin:
        win_plies = win_plies < 0 ? plies : std::min(win_plies, plies);
        break;
      case Proven::kDraw:
        draw_plies = draw_plies < 0 ? plies : std::min(draw_plies, plies);
        break;
      case Proven::kLoss:
        loss_plies = std::max(loss_plies, plies);
        break;
      case Proven::kUnknown:
        all_proven = false;
        break;
    }
  }
  Proven result;
  int plies;
  if (win_plies >= 0) {
    result = Proven::kLoss;
    plies = win_plies;
  } else if (!all_proven) {
    return false;
  } else if (draw_plies >= 0) {
    result = Proven::kDraw;
    plies = draw_plies;
  } else {
    result = Proven::kWin;
    plies = loss_plies;
  }
  // The length first: whoever sees the result reads a length with it. (Two
  // threads proving one node at once store the same result.)
  node.end_plies.store(uint8_t(std::min(plies + 1, 255)), std::memory_order_relaxed);
  node.proven.store(result, std::memory_order_release);
  return true;
}

void SearchTree::PathValues(const std::vector<uint32_t>& path, float value, float draw, bool expanded, float* values,
                            float* draws) {
  // value is for the mover into the last node; it flips sign at each level.
  bool proving = params_.solver && expanded;  // a new expansion may prove its node
  for (size_t i = path.size(); i-- > 0;) {
    Node& node = arena_[path[i]];
    if (proving) {
      proving = !node.is_proven() && node.current_state() == Node::kExpanded && TryProve(node);
      if (proving) {
        const Proven proven = node.result();
        value = ProvenValue(proven);
        draw = proven == Proven::kDraw ? 1.0f : 0.0f;
      }
    }
    values[i] = value;
    draws[i] = draw;
    value = -value;
  }
}

template <typename ValueOf>
void SearchTree::Land(Node& node, int landed, ValueOf value_of) {
  if (concurrent_) {
    node.LockStats();
  } else {
    AddInFlight(node, -landed);
  }
  for (int k = 0; k < landed; ++k) {
    const std::pair<float, float> visit = value_of(k);
    node.AddVisit(visit.first, visit.second);
  }
  if (concurrent_) node.UnlockStatsAndLand(landed);
}

void SearchTree::BackupProven(const std::vector<uint32_t>& path, Proven proven, int count) {
  float value = ProvenValue(proven);
  const float draw = proven == Proven::kDraw ? 1.0f : 0.0f;
  for (size_t i = path.size(); i-- > 0;) {
    Land(arena_[path[i]], count, [&](int) { return std::make_pair(value, draw); });
    value = -value;
  }
}

}  // namespace loa
