// The selection of SearchTree (mcts/tree.h): the Gumbel root, PUCT's
// choice of a child, a leaf's descent and the multi-gather; tree.cpp holds
// its memory and queries, tree_backup.cpp the backup.

#include "mcts/tree.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "mcts/gumbel.h"
#include "mcts/puct.h"

namespace loa {

namespace {

// docs/RULES.md rule 9: the third occurrence of a position draws.
constexpr int kRepetitionLimit = 3;

// A score that beats any PUCT score: forced playouts and proven wins.
constexpr float kForcedScore = 1e9f;

// Returns the proven result, for the mover, of a finished game's verdict.
Proven ResultFor(Result result, Color mover) {
  if (result == Result::kDraw) return Proven::kDraw;
  return result == WinFor(mover) ? Proven::kWin : Proven::kLoss;
}

}  // namespace

void SearchTree::DrawGumbel() {
  const Node& root = arena_[0];
  gumbel_.resize(root.num_children);
  for (float& g : gumbel_) {
    double u = rng_->Uniform();
    while (u <= 0) u = rng_->Uniform();
    g = float(-std::log(-std::log(u)));
  }
  considered_ = ConsideredVisits(std::min<int>(params_.gumbel_considered, root.num_children), gumbel_simulations_);
}

uint32_t SearchTree::SelectGumbelRoot(const uint16_t* shares) const {
  const Node& root = arena_[0];
  FillRootChildren(&scratch_children_);
  scratch_visits_.resize(root.num_children);
  uint32_t simulation = 0;
  for (int i = 0; i < root.num_children; ++i) {
    const Node& child = arena_[root.first_child + i];
    simulation += scratch_visits_[size_t(i)] = child.n() + child.n_in_flight() + (shares ? shares[i] : 0);
  }
  const uint32_t considered = considered_[std::min<size_t>(simulation, considered_.size() - 1)];
  const std::vector<float> sigma = SigmaCompletedQ(scratch_children_, root_raw_value_, params_);
  return root.first_child + uint32_t(GumbelSelect(scratch_children_, scratch_visits_, gumbel_, sigma, considered));
}

void SearchTree::ApplyNoise() {
  Node& root = arena_[0];
  if (root.num_children < 2) return;
  double noise[kMaxMoves], sum = 0;
  for (int i = 0; i < root.num_children; ++i) sum += noise[i] = rng_->Gamma(params_.dirichlet_alpha);
  if (sum <= 0) return;
  if (root_raw_priors_.empty())
    for (int i = 0; i < root.num_children; ++i) root_raw_priors_.push_back(arena_[root.first_child + i].prior);
  const float epsilon = params_.dirichlet_epsilon;
  for (int i = 0; i < root.num_children; ++i) {
    Node& child = arena_[root.first_child + i];
    child.prior = (1 - epsilon) * child.prior + epsilon * float(noise[i] / sum);
  }
}

uint32_t SearchTree::SelectChild(const Node& parent, bool at_root, const uint16_t* shares,
                                 uint32_t parent_shares) const {
  if (at_root && !gumbel_.empty()) return SelectGumbelRoot(shares);
  const float virtual_loss = params_.virtual_loss;
  const uint32_t parent_visits = parent.n();
  const double total =
      std::max(1.0, double(parent_visits) - 1 + double(virtual_loss) * (parent.n_in_flight() + parent_shares));
  // U = exploration * P / (1 + n): c(N) sqrt(N) once per node.
  double factor = ExplorationFactor(params_, total);
  if (params_.cpuct_stdev_scale > 0)
    factor *= StdevExplorationScale(params_.cpuct_stdev_scale, parent_visits, parent.value(), parent.square());
  const float exploration = float(factor * std::sqrt(total));
  const bool forced = at_root && forced_;
  const float children_visits = float(parent_visits) - 1;

  uint32_t best = parent.first_child;
  float best_score = -INFINITY;
  uint32_t best_unvisited = kNoNode;
  float best_unvisited_prior = -1, visited_mass = 0;
  for (int i = 0; i < parent.num_children; ++i) {
    const uint32_t index = parent.first_child + i;
    const Node& child = arena_[index];
    const uint32_t visits = child.n(), in_flight = child.n_in_flight() + (shares ? shares[i] : 0);
    const float n = float(visits) + virtual_loss * float(in_flight);
    float q = child.value();
    const Proven proven = child.result();
    if (proven != Proven::kUnknown) {
      if (proven == Proven::kWin) return index;  // the mover wins: nothing is better
      if (proven == Proven::kLoss && params_.solver) continue;
      q = ProvenValue(proven);
    } else if (n == 0) {
      if (child.prior > best_unvisited_prior) {
        best_unvisited_prior = child.prior;
        best_unvisited = index;
      }
      continue;
    } else if (in_flight > 0) {
      q = (q * float(visits) - virtual_loss * float(in_flight)) / n;
    }
    if (visits + in_flight > 0) visited_mass += child.prior;
    float score = q + exploration * child.prior / (1 + n);
    if (forced && proven != Proven::kLoss &&
        float(visits + in_flight) < std::sqrt(params_.forced_playouts_k * child.prior * children_visits))
      score = kForcedScore + child.prior;
    if (score > best_score) {
      best_score = score;
      best = index;
    }
  }
  if (best_unvisited != kNoNode) {
    const float reduction = at_root ? (noise_ ? 0.0f : params_.fpu_reduction_root) : params_.fpu_reduction;
    const float fpu = -parent.value() - reduction * std::sqrt(visited_mass);
    float score = fpu + exploration * best_unvisited_prior;
    if (forced && best_unvisited_prior > 0 && children_visits > 0) score = kForcedScore + best_unvisited_prior;
    if (score > best_score) best = best_unvisited;
  }
  return best;
}

void SearchTree::AddInFlight(Node& node, int delta) {
  // One thread needs no read-modify-write instruction.
  if (concurrent_)
    node.in_flight.fetch_add(uint16_t(delta), std::memory_order_relaxed);
  else
    node.in_flight.store(uint16_t(node.n_in_flight() + delta), std::memory_order_relaxed);
}

bool SearchTree::ClaimExpansion(Node& node, Node::State* state) {
  // With threads, the one whose exchange succeeds claims it (a failed
  // exchange loads the state that another thread made).
  bool claimed = true;
  if (concurrent_)
    claimed = node.state.compare_exchange_strong(*state, Node::kPending, std::memory_order_acquire);
  else
    node.state.store(Node::kPending, std::memory_order_relaxed);
  if (claimed) AddInFlight(node, 1);
  return claimed;
}

SearchTree::Selection SearchTree::SelectLeaf(Leaf* leaf) {
  // Each node's in-flight count goes up once its child is chosen (so that a
  // node's own choice sees the playouts in flight before this one), and
  // comes down again in Backup, or here on a collision.
  leaf->path.clear();
  leaf->hashes.clear();
  Position pos = root_position_;
  uint32_t index = 0;
  for (;;) {
    Node& node = arena_[index];
    leaf->path.push_back(index);
    leaf->hashes.push_back(pos.hash());
    const Proven proven = node.result();
    if (proven != Proven::kUnknown) {
      AddInFlight(node, 1);
      BackupProven(leaf->path, proven, 1);
      return Selection::kBackedUp;
    }
    Node::State state = node.current_state();
    if (state == Node::kLeaf && ClaimExpansion(node, &state)) {
      leaf->position = pos;
      return Selection::kLeaf;
    }
    if (state != Node::kExpanded) {  // pending: another playout evaluates it
      for (size_t i = 0; i + 1 < leaf->path.size(); ++i) AddInFlight(arena_[leaf->path[i]], -1);
      return Selection::kCollision;
    }
    index = SelectChild(node, index == 0);
    AddInFlight(node, 1);
    pos = pos.Apply(arena_[index].edge_move());
  }
}

Proven SearchTree::JudgeChild(const Leaf& leaf, const HashFilter& seen, Move move, const Position& child,
                              Color mover) const {
  if (move.is_capture()) {
    const Verdict verdict = UnitedVerdict(child, mover, rules_.simultaneous);
    if (verdict.over()) return ResultFor(verdict.result, mover);
  } else if (!move.is_pass() && child.IsUnited(mover)) {
    // Without a capture the opponent's pieces, not united at the leaf, stay
    // as they were: only the mover can have united (UnitedVerdict's answer).
    return Proven::kWin;
  }
  // Repetition along the game and the tree path (the root is in both once).
  const uint64_t hash = child.hash();
  if (seen.MayHold(hash)) {
    int occurrences = 1;
    for (size_t i = 1; i < leaf.hashes.size(); ++i) occurrences += leaf.hashes[i] == hash;
    if (PopCount(child.occupied()) == PopCount(root_position_.occupied()))
      for (uint64_t h : repeatable_) occurrences += h == hash;
    if (occurrences >= kRepetitionLimit) return Proven::kDraw;
  }
  const int ply = root_ply_ + int(leaf.path.size());
  if (rules_.max_plies > 0 && ply >= rules_.max_plies) return Proven::kDraw;
  return Proven::kUnknown;
}

struct SearchTree::Descent {
  Leaf* leaves;
  int count = 0;
  std::vector<uint32_t>& path;
  std::vector<uint64_t>& hashes;
};

int SearchTree::Descend(uint32_t index, const Position& pos, int budget, Descent* descent) {
  Node& node = arena_[index];
  descent->path.push_back(index);
  descent->hashes.push_back(pos.hash());
  int used = 0;
  const Proven proven = node.result();
  Node::State state = node.current_state();
  if (proven != Proven::kUnknown) {
    AddInFlight(node, budget);
    BackupProven(descent->path, proven, budget);
    used = budget;
  } else if (state == Node::kLeaf) {
    // One playout claims the expansion; the rest of the budget collides
    // with it.
    if (ClaimExpansion(node, &state)) {
      Leaf& leaf = descent->leaves[descent->count++];
      leaf.position = pos;
      leaf.path = descent->path;
      leaf.hashes = descent->hashes;
      used = 1;
    }
  } else if (state == Node::kExpanded) {
    const bool at_root = index == 0;
    if (budget == 1) {
      const uint32_t child = SelectChild(node, at_root);
      AddInFlight(node, 1);
      used = Descend(child, pos.Apply(arena_[child].edge_move()), 1, descent);
    } else {
      uint16_t shares[kMaxMoves] = {};
      for (int k = 0; k < budget; ++k) ++shares[SelectChild(node, at_root, shares, uint32_t(k)) - node.first_child];
      AddInFlight(node, budget);
      for (int i = 0; i < node.num_children; ++i)
        if (shares[i] > 0) {
          const uint32_t child = node.first_child + i;
          used += Descend(child, pos.Apply(arena_[child].edge_move()), shares[i], descent);
        }
    }
    if (used < budget) AddInFlight(node, used - budget);
  }
  descent->path.pop_back();
  descent->hashes.pop_back();
  return used;
}

int SearchTree::Gather(int max_leaves, uint32_t visit_target, Leaf* leaves, bool* collided, TreeScratch& scratch) {
  *collided = false;
  int count = 0;
  // With threads: playouts take tickets, so that threads stop at the target
  // exactly, a batch's worth at once (one read-modify-write of the shared
  // counter); those not used go back.
  uint32_t tickets = 0;
  while (count < max_leaves) {
    const Node& root = arena_[0];
    if (root.is_proven()) break;
    const uint32_t started = concurrent_ ? 0 : root.n() + root.n_in_flight();
    if (concurrent_) {
      if (tickets == 0) {
        uint32_t taken = root_playouts_.load(std::memory_order_relaxed);
        do {
          if (taken >= visit_target) return count;
          tickets = std::min(uint32_t(max_leaves - count), visit_target - taken);
        } while (!root_playouts_.compare_exchange_weak(taken, taken + tickets, std::memory_order_relaxed));
      }
    } else if (started >= visit_target) {
      break;
    }
    if (params_.multi_gather) {
      // One descent for the batch; a second only where all of the first's
      // playouts backed up proven nodes.
      const int budget =
          concurrent_ ? int(tickets) : int(std::min<uint32_t>(max_leaves - count, visit_target - started));
      Descent descent{leaves + count, 0, scratch.path, scratch.hashes};
      const int used = Descend(0, root_position_, budget, &descent);
      count += descent.count;
      if (concurrent_) tickets -= uint32_t(used);
      if (used < budget) {
        *collided = true;
        break;
      }
      continue;
    }
    const Selection selection = SelectLeaf(&leaves[count]);
    if (selection == Selection::kCollision) {
      *collided = true;
      break;
    }
    if (concurrent_) --tickets;
    if (selection == Selection::kLeaf) ++count;
  }
  if (tickets > 0) root_playouts_.fetch_sub(tickets, std::memory_order_relaxed);
  return count;
}

}  // namespace loa
