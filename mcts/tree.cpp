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

SearchTree::SearchTree(const SearchParams& params) : params_(params), concurrent_(params.threads > 1) {
  arena_.Allocate(1);
}

void SearchTree::Reserve(uint64_t slots) { arena_.Reserve(slots); }

void SearchTree::SetRoot(const Game& game, bool reuse) {
  assert(!game.over());
  std::vector<uint64_t> hashes;
  hashes.reserve(game.ply() + 1);
  Position pos = game.start();
  hashes.push_back(pos.hash());
  for (Move m : game.moves()) {
    pos = pos.Apply(m);
    hashes.push_back(pos.hash());
  }

  bool kept = false;
  if (reuse && has_root_ && game.rules() == rules_ && game.ply() >= root_ply_ &&
      std::equal(game_hashes_.begin(), game_hashes_.end(), hashes.begin())) {
    assert(arena_[0].n_in_flight() == 0);
    uint32_t index = 0;
    for (int ply = root_ply_; ply < game.ply() && index != kNoNode; ++ply) {
      const Node& node = arena_[index];
      const uint16_t played = game.moves()[ply].raw();
      uint32_t next = kNoNode;
      for (int i = 0; i < node.num_children; ++i)
        if (arena_[node.first_child + i].move == played) next = node.first_child + i;
      index = next;
    }
    const Node::State state = index == kNoNode ? Node::kTerminal : arena_[index].current_state();
    if (state != Node::kTerminal && state != Node::kPending) {
      if (index != 0) Reroot(index);
      kept = true;
    }
  }
  if (!kept) {
    arena_.Clear();
    arena_.Allocate(1);
  }
  has_root_ = true;
  root_raw_priors_.clear();
  rules_ = game.rules();
  root_position_ = game.position();
  root_ply_ = game.ply();
  game_hashes_ = std::move(hashes);
  // Pieces are never added: only positions with the root's piece count (all
  // of them since the last capture) can occur again.
  repeatable_.clear();
  repeatable_filter_ = HashFilter();
  const int pieces = PopCount(root_position_.occupied());
  pos = game.start();
  for (int ply = 0;; ++ply) {
    if (PopCount(pos.occupied()) == pieces) {
      repeatable_.push_back(pos.hash());
      repeatable_filter_.Add(pos.hash());
    }
    if (ply == game.ply()) break;
    pos = pos.Apply(game.moves()[ply]);
  }
}

void SearchTree::Clear() {
  arena_.Clear();
  arena_.Allocate(1);
  has_root_ = false;
  root_raw_priors_.clear();
}

void SearchTree::Reroot(uint32_t index) {
  // Breadth-first copy of the subtree into a spare arena, children blocks
  // kept contiguous; the spare's old memory serves the next tree.
  static thread_local NodeArena spare;
  static thread_local std::vector<std::pair<uint32_t, uint32_t>> queue;
  spare.Clear();
  spare.Allocate(1);
  spare[0] = arena_[index];
  queue.clear();
  queue.emplace_back(index, 0);
  for (size_t head = 0; head < queue.size(); ++head) {
    const auto [from, to] = queue[head];
    const Node& old = arena_[from];
    if (old.num_children == 0) continue;
    const uint32_t first = spare.Allocate(old.num_children);
    spare[to].first_child = first;
    for (int i = 0; i < old.num_children; ++i) {
      spare[first + i] = arena_[old.first_child + i];
      if (spare[first + i].num_children > 0) queue.emplace_back(old.first_child + i, first + i);
    }
  }
  arena_.swap(spare);
}

void SearchTree::BeginSearch(bool noise, bool forced_playouts, Rng* rng) {
  noise_ = noise && params_.dirichlet_epsilon > 0;
  forced_ = forced_playouts && params_.forced_playouts_k > 0;
  rng_ = rng;
  assert(!noise_ || rng_);
  root_playouts_.store(arena_[0].n() + arena_[0].n_in_flight(), std::memory_order_relaxed);
  gumbel_simulations_ = 0;
  gumbel_.clear();
  considered_.clear();
  if (noise_ && arena_[0].current_state() == Node::kExpanded) ApplyNoise();
}

void SearchTree::UseGumbelRoot(int simulations) {
  assert(rng_ && !noise_ && simulations > 0);
  gumbel_simulations_ = simulations;
  if (arena_[0].current_state() == Node::kExpanded) DrawGumbel();
}

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

int SearchTree::Gather(int max_leaves, uint32_t visit_target, Leaf* leaves, bool* collided) {
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
      static thread_local std::vector<uint32_t> path;
      static thread_local std::vector<uint64_t> hashes;
      Descent descent{leaves + count, 0, path, hashes};
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

bool SearchTree::Done(uint32_t visit_target) const { return arena_[0].is_proven() || arena_[0].n() >= visit_target; }

int SearchTree::PublishedChildren(const Node& node) {
  return node.current_state() == Node::kExpanded ? node.num_children : 0;
}

float SearchTree::RootValue() const {
  const Node& root = arena_[0];
  const Proven proven = root.result();
  return proven != Proven::kUnknown ? ProvenValue(Flip(proven)) : -root.value();
}

float SearchTree::RootDraw() const {
  const Node& root = arena_[0];
  const Proven proven = root.result();
  return proven != Proven::kUnknown ? float(proven == Proven::kDraw) : root.draw();
}

void SearchTree::TopTwoVisits(uint32_t* first, uint32_t* second) const {
  *first = *second = 0;
  const Node& root = arena_[0];
  const int children = PublishedChildren(root);
  for (int i = 0; i < children; ++i) {
    const uint32_t visits = arena_[root.first_child + i].n();
    if (visits > *first) {
      *second = *first;
      *first = visits;
    } else if (visits > *second) {
      *second = visits;
    }
  }
}

std::vector<RootChild> SearchTree::RootChildren() const {
  std::vector<RootChild> children;
  FillRootChildren(&children);
  return children;
}

void SearchTree::FillRootChildren(std::vector<RootChild>* children) const {
  children->clear();
  const Node& root = arena_[0];
  const int count = PublishedChildren(root);
  children->reserve(count);
  const bool noised = root_raw_priors_.size() == size_t(count);
  for (int i = 0; i < count; ++i) {
    const Node& child = arena_[root.first_child + i];
    RootChild c;
    c.move = child.edge_move();
    c.prior = child.prior;
    c.raw_prior = noised ? root_raw_priors_[size_t(i)] : child.prior;
    c.proven = child.result();
    c.end_plies = child.end_plies.load(std::memory_order_relaxed);
    c.visits = child.n();
    const bool proven = c.proven != Proven::kUnknown;
    c.q = proven ? ProvenValue(c.proven) : child.value();
    c.d = proven ? float(c.proven == Proven::kDraw) : child.draw();
    c.q_stdev = proven ? 0.0f : std::sqrt(std::max(0.0f, child.square() - c.q * c.q));
    children->push_back(c);
  }
}

std::vector<Move> SearchTree::PrincipalVariation(Move first, int max_length) const {
  std::vector<Move> pv;
  const Node* node = &arena_[0];
  Move next = first;
  while (int(pv.size()) < max_length) {
    const int count = PublishedChildren(*node);
    if (count == 0) break;
    const Node* chosen = nullptr;
    for (int i = 0; i < count; ++i) {
      const Node& child = arena_[node->first_child + i];
      if (pv.empty() ? child.edge_move() == next : (!chosen || child.n() > chosen->n())) chosen = &child;
    }
    if (!chosen || (!pv.empty() && chosen->n() == 0)) break;
    pv.push_back(chosen->edge_move());
    node = chosen;
  }
  return pv;
}

}  // namespace loa
