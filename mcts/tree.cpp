// SearchTree (mcts/tree.h): its memory (the root set, reused or rerooted)
// and its queries; tree_select.cpp selects, tree_backup.cpp backs up.

#include "mcts/tree.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "mcts/gumbel.h"
#include "mcts/puct.h"

namespace loa {

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
  spare_.Release();  // the last game's largest tree goes
  reroot_queue_ = {};
  has_root_ = false;
  root_raw_priors_.clear();
}

void SearchTree::Reroot(uint32_t index) {
  // Breadth-first copy of the subtree into a spare arena, children blocks
  // kept contiguous; the spare's old memory serves the next tree.
  NodeArena& spare = spare_;
  std::vector<std::pair<uint32_t, uint32_t>>& queue = reroot_queue_;
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

void SearchTree::ProvenPositions(bool with_root, std::vector<ProvenPosition>* out) const {
  auto decided = [](Proven p) { return p == Proven::kWin || p == Proven::kLoss; };
  const Node& root = arena_[0];
  if (with_root && decided(root.result()))
    out->push_back({root_position_, Flip(root.result()), root.end_plies.load(std::memory_order_relaxed)});
  std::vector<std::pair<uint32_t, Position>> stack = {{0, root_position_}};
  while (!stack.empty()) {
    const auto [index, pos] = stack.back();
    stack.pop_back();
    const Node& node = arena_[index];
    for (int i = 0; i < PublishedChildren(node); ++i) {
      const uint32_t c = node.first_child + i;
      const Node& child = arena_[c];
      if (child.current_state() != Node::kExpanded) continue;  // terminal ones are the rules' own
      const Position after = pos.Apply(child.edge_move());
      if (decided(child.result()))
        out->push_back({after, Flip(child.result()), child.end_plies.load(std::memory_order_relaxed)});
      stack.emplace_back(c, after);
    }
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
