#pragma once
// One search tree: PUCT selection with first-play urgency, virtual loss and
// forced playouts; expansion from an evaluation; backup with MCTS-Solver;
// terminal positions and repetitions judged by the rules core; root noise;
// tree reuse between moves. Both drivers (the engine's threaded Search and
// the batched self-play driver) are built on it.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/game.h"
#include "core/position.h"
#include "core/random.h"
#include "core/spin_lock.h"
#include "mcts/evaluator.h"
#include "mcts/node.h"
#include "mcts/root_stats.h"
#include "mcts/search_params.h"

namespace loa {

// A leaf on its way to the evaluator: the position and the path to it.
// Reuse one per slot: its vectors keep their capacity.
struct Leaf {
  Position position;
  std::vector<uint32_t> path;    // arena indices, the root first
  std::vector<uint64_t> hashes;  // the hash of the position at each path node
};

// What one thread's Gather and ExpandAndBackup keep between calls: the
// path of a multi-gather descent and the values a batch backs up. Owned by
// the caller (Search's thread scratch, a self-play slot), so that its
// memory goes with it; one thread at a time.
struct TreeScratch {
  std::vector<uint32_t> path;
  std::vector<uint64_t> hashes;
  std::vector<float> values, draws;
  std::vector<size_t> offsets;
};

// A 256-bit set of hash fingerprints: "certainly not among them" for most
// positions, so the repetition check rarely has to count.
struct HashFilter {
  uint64_t bits[4] = {};
  void Add(uint64_t hash) { bits[hash >> 62] |= uint64_t{1} << ((hash >> 56) & 63); }
  bool MayHold(uint64_t hash) const { return (bits[hash >> 62] >> ((hash >> 56) & 63)) & 1; }
};

// A position of a search tree that the MCTS-Solver proved won or lost: a
// value target off the played line (selfplay.tree_proofs).
struct ProvenPosition {
  Position position;
  Proven result = Proven::kUnknown;  // kWin or kLoss, for its side to move
  int plies = 0;                     // the proof's length (Node::end_plies)
};

// Writes priors[0..n) raised to 1/temperature and renormalised to out
// (SearchParams::policy_temperature); priors that sum to 0 are copied.
void TemperPriors(const float* priors, int n, float temperature, float* out);

// With params.threads > 1 the tree is shared: Gather, SelectLeaf,
// ExpandAndBackup and the root queries (root_visits, TopTwoVisits,
// RootChildren, PrincipalVariation, RootValue, ...) may run on any threads
// at once, after Reserve; each node's statistics are atomics (mcts/node.h),
// a claim of a leaf is a compare-exchange, a backup of a node's statistics
// holds the node's own spin lock (Node::LockStats), and an allocation's
// claim the arena's. The rest (SetRoot, Clear, BeginSearch, UseGumbelRoot) needs the
// tree to itself. With one thread (the batched driver's trees) nothing is locked
// and no read-modify-write is used. `params` must outlive the tree.
class SearchTree {
 public:
  explicit SearchTree(const SearchParams& params);

  // Makes room in the arena's chunk table for `slots` index slots, so that
  // threads can allocate up to there; the searches that share a tree call it
  // after SetRoot with their bound (max_tree_nodes and a margin for the
  // playouts in flight).
  void Reserve(uint64_t slots);

  // Makes the game's position the root. With `reuse`, when the game continues
  // the game of the current root, the subtree of the moves played since is
  // kept (compacted), else the tree starts afresh. The game must not be over
  // and no playout may be in flight.
  void SetRoot(const Game& game, bool reuse);

  // Forgets the tree: the next SetRoot starts afresh (a new game).
  void Clear();

  // Sets the switches of the next search: root Dirichlet noise, drawn from
  // rng (which must outlive the search), and forced playouts at the root.
  void BeginSearch(bool noise, bool forced_playouts, Rng* rng);

  enum class Selection {
    kLeaf,       // *leaf needs an evaluation; virtual loss is on its path
    kBackedUp,   // reached a terminal or proven node; its value is backed up
    kCollision,  // reached a node whose evaluation is in flight; nothing done
  };

  // Makes the root of the search begun by BeginSearch Gumbel AlphaZero's
  // (mcts/gumbel.h) over `simulations` playouts: a Gumbel draw per root move
  // from the rng of BeginSearch, then sequential halving. The root must be
  // fresh (SetRoot without reuse) and BeginSearch without noise.
  void UseGumbelRoot(int simulations);
  // The Gumbel draws of the root's children, in RootChildren's order (empty
  // outside a Gumbel search or before the root is expanded).
  const std::vector<float>& root_gumbel() const { return gumbel_; }
  // Returns the net's value of the root for its side to move, from the
  // evaluation that expanded it.
  float RootRawValue() const { return root_raw_value_; }

  // Walks from the root to a node to evaluate, by PUCT (by sequential
  // halving at a Gumbel root).
  Selection SelectLeaf(Leaf* leaf);

  // Expands leaf (from SelectLeaf) with its evaluation, judges its children
  // by the rules, and backs up the value (proofs too, with the solver).
  void ExpandAndBackup(const Leaf& leaf, const EvalOutput& eval);
  // The same for leaves[0..count) of one Gather: every leaf expanded first,
  // then each node's statistics updated once for the run of consecutive
  // leaves through it (one lock, one landing of their in-flight counts).
  // scratch: the caller's (one thread's), kept between calls.
  void ExpandAndBackup(const Leaf* leaves, const EvalOutput* evals, int count, TreeScratch& scratch);

  // Selects up to max_leaves leaves into leaves[0..n) and returns n; stops
  // early when the root is proven or has visit_target visits (counting those
  // in flight), or on a collision, which sets *collided. With
  // params.multi_gather one descent takes them all (lc0's multi-gather): at
  // each node the playouts are shared among its children by PUCT, each
  // share counting as virtual loss for the next, and each node's in-flight
  // count goes up once by its share; the leaves come in depth-first order.
  // Else a descent a leaf (SelectLeaf).
  // scratch: the caller's (one thread's), kept between calls.
  int Gather(int max_leaves, uint32_t visit_target, Leaf* leaves, bool* collided, TreeScratch& scratch);

  // Returns whether the search is over: the root is proven or has
  // visit_target completed visits.
  bool Done(uint32_t visit_target) const;

  const Position& root_position() const { return root_position_; }
  uint32_t root_visits() const { return arena_[0].n(); }
  uint32_t root_in_flight() const { return arena_[0].n_in_flight(); }
  // Returns the arena slots in use: a bound on the tree's memory / 32 bytes.
  uint32_t size() const { return arena_.size(); }

  // Returns the root's result for its side to move (kUnknown if unproven).
  Proven RootProven() const { return Flip(arena_[0].result()); }
  // Returns the root's value for its side to move: exact when proven.
  float RootValue() const;
  // Returns the root's mean draw probability.
  float RootDraw() const;
  // Sets the two largest visit counts among the root's children (0 if none);
  // no allocation, for stopping rules checked at every playout.
  void TopTwoVisits(uint32_t* first, uint32_t* second) const;
  // Returns the root's moves with their statistics (empty if unexpanded).
  std::vector<RootChild> RootChildren() const;
  // Appends to *out every expanded node below the root (and the root too,
  // with `with_root`) that the solver proved won or lost, with its position.
  // Draws are left out: a draw may rest on a repetition of the game's
  // history, which the position alone does not hold; a win or a loss never
  // does (a repetition only ever makes a draw). One thread only.
  void ProvenPositions(bool with_root, std::vector<ProvenPosition>* out) const;
  // Returns the principal variation from root move `first`: it, then the
  // most visited child at each level, at most max_length moves.
  std::vector<Move> PrincipalVariation(Move first, int max_length) const;

 private:
  // The child PUCT picks; with `shares`, shares[i] more playouts counted in
  // flight through child i and `parent_shares` through the parent (a
  // multi-gather's shares so far).
  uint32_t SelectChild(const Node& parent, bool at_root, const uint16_t* shares = nullptr,
                       uint32_t parent_shares = 0) const;
  uint32_t SelectGumbelRoot(const uint16_t* shares) const;
  // A multi-gather's descent below node `index`, at position pos, with
  // `budget` playouts (not yet counted in the node's in-flight count);
  // returns those used: leaves claimed and visits of proven nodes backed
  // up. The rest met a collision.
  struct Descent;
  int Descend(uint32_t index, const Position& pos, int budget, Descent* descent);
  // Expands leaf with its evaluation (no backup).
  void Expand(const Leaf& leaf, const EvalOutput& eval);
  // Writes the value and draw probability that a playout of `value` (for
  // the mover into the path's last node) backs up into each node of the
  // path; with `expanded` (the last node just expanded) the solver's proofs
  // along the way first.
  void PathValues(const std::vector<uint32_t>& path, float value, float draw, bool expanded, float* values,
                  float* draws);
  void FillRootChildren(std::vector<RootChild>* children) const;
  void DrawGumbel();
  Proven JudgeChild(const Leaf& leaf, const HashFilter& seen, Move move, const Position& child, Color mover) const;
  bool TryProve(Node& node);
  // Adds `landed` visits to node, value_of(k) the (value, draw) of the
  // k-th, and takes them off its in-flight count (with threads under the
  // node's lock, landed in one step).
  template <typename ValueOf>
  void Land(Node& node, int landed, ValueOf value_of);
  // Backs `count` visits of a proven node's value up the path, each node's
  // in-flight count coming down by count.
  void BackupProven(const std::vector<uint32_t>& path, Proven proven, int count);
  void AddInFlight(Node& node, int delta);
  // Claims the expansion of a leaf in *state kLeaf (kPending now, the
  // claimer's playout in flight); with threads another may have claimed it
  // first: false, *state what it made.
  bool ClaimExpansion(Node& node, Node::State* state);
  // Returns the node's number of children once they are published, else 0.
  static int PublishedChildren(const Node& node);
  void ApplyNoise();
  void Reroot(uint32_t index);

  const SearchParams& params_;
  const bool concurrent_;
  NodeArena arena_;
  // Reroot's copy of the subtree kept, swapped with arena_: its memory
  // serves the next tree, and goes with this one (or at Clear).
  NodeArena spare_;
  std::vector<std::pair<uint32_t, uint32_t>> reroot_queue_;
  // Held for an allocation's claim (NodeArena::Claim); on its own cache
  // line, as root_playouts_.
  alignas(64) SpinLock allocation_lock_;
  // With threads: the root's visits and playouts in flight, counted when a
  // playout starts (Gather's tickets).
  alignas(64) std::atomic<uint32_t> root_playouts_{0};
  Rules rules_;
  Position root_position_;
  int root_ply_ = 0;
  bool has_root_ = false;
  // Hashes of every game position up to the root, and of those that can still
  // repeat (no capture since: same piece count as the root), root included.
  std::vector<uint64_t> game_hashes_;
  std::vector<uint64_t> repeatable_;
  HashFilter repeatable_filter_;
  bool noise_ = false, forced_ = false;
  Rng* rng_ = nullptr;
  float root_raw_value_ = 0;
  // The root children's priors before the noise (empty while none was mixed
  // in): RootChild::raw_prior, for policy-surprise weighting.
  std::vector<float> root_raw_priors_;
  // The Gumbel root: its simulations, draws and considered-visit sequence,
  // and scratch space for its selection.
  int gumbel_simulations_ = 0;
  std::vector<float> gumbel_;
  std::vector<uint32_t> considered_;
  mutable std::vector<RootChild> scratch_children_;
  mutable std::vector<uint32_t> scratch_visits_;
};

}  // namespace loa
