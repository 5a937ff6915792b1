#pragma once
// The search parameters: one plain struct, filled by the training config
// (self-play) or by a player spec (the engine). Every default names its
// origin; every field is declared once, with its range and help, in
// search_params.cpp (core/param_visitor.h).

#include <cstdint>
#include <string>

namespace loa {

// The most playouts a search may be given.
inline constexpr int kMaxPlayouts = 100'000'000;

class ParamVisitor;

struct SearchParams {
  // --- Budget -------------------------------------------------------------
  // The search stops when the root has this many visits; visits of a reused
  // subtree count (KataGo's maxVisits). AlphaZero: 800 per move.
  int playouts = 800;
  // Search threads of one game (the engine's Search); the batched self-play
  // driver is single-threaded and ignores it.
  int threads = 1;
  // Leaves one engine thread gathers (with virtual loss) before it calls the
  // evaluator; 1 makes a one-thread search exactly sequential.
  int leaves_per_batch = 1;
  // One descent gathers a thread's batch (lc0's multi-gather; mcts/tree.h
  // Gather): the tree's shared top is walked and written once a batch
  // rather than once a leaf.
  bool multi_gather = false;
  // The engine's move by a lower confidence bound on its value (KataGo,
  // Leela Zero): z standard errors below Q; 0 plays the most visited move.
  float lcb_z = 0;
  // The net's priors at each expansion taken as p^(1/T), renormalised (lc0's
  // policy softmax temperature, above 1 at play time there): T > 1 spreads
  // the search over more moves. 1: the net's priors as they are.
  float policy_temperature = 1;
  // The engine stops gathering when the tree holds this many nodes (32 bytes
  // each): a memory bound for long timed searches.
  int64_t max_tree_nodes = int64_t{1} << 24;

  // --- PUCT ---------------------------------------------------------------
  // Exploration c(N) = cpuct_init + cpuct_factor * log((N + cpuct_base + 1) /
  // cpuct_base), U = c(N) * P * sqrt(N) / (1 + n). AlphaZero (Silver et al.
  // 2018, pseudocode): c_init 1.25, c_base 19652 with Q in [0, 1]; our Q is in
  // [-1, 1], so both terms double (CrazyAra uses init 2.5, base 19652 likewise).
  float cpuct_init = 2.5f;
  float cpuct_base = 19652.0f;
  float cpuct_factor = 2.0f;
  // Exploration scaled by the spread of a node's values (KataGo's
  // cpuctUtilityStdevScale, 0.85 there): StdevExplorationScale in
  // mcts/puct.h. 0 is off.
  float cpuct_stdev_scale = 0;
  // First-play urgency: an unvisited child's Q is the parent's Q minus
  // fpu_reduction * sqrt(prior mass of the visited children) (KataGo's
  // fpuReductionMax 0.2, lc0's "reduction" strategy).
  float fpu_reduction = 0.2f;
  // The same at the root (KataGo's rootFpuReductionMax 0.1); a search with
  // root noise uses 0, so that noised moves get their first visit.
  float fpu_reduction_root = 0.1f;
  // Virtual losses one in-flight playout adds to each node of its path
  // (KataGo's numVirtualLossesPerThread default 3).
  float virtual_loss = 3.0f;
  // MCTS-Solver (Winands, Bjornsson, Saito 2008, first shown on LOA): proven
  // wins, losses and draws are backed up and proven losses never chosen.
  bool solver = true;
  // Keep the subtree of the move played for the next search (AlphaZero,
  // lc0, KataGo). The self-play driver drops it before a noised search
  // (docs/DESIGN.md): the subtree was grown without the new root's noise.
  bool reuse_tree = true;

  // --- Self-play only (the batched driver) ------------------------------
  // Root Dirichlet noise P' = (1 - epsilon) P + epsilon Dir(alpha), in full
  // searches only. AlphaZero chess: alpha 0.3 (~10 / legal moves; LOA has ~30),
  // epsilon 0.25.
  float dirichlet_alpha = 0.3f;
  float dirichlet_epsilon = 0.25f;
  // Move temperature at ply p: temperature_end + (temperature_start -
  // temperature_end) * 0.5^(p / halflife) when halflife > 0 (KataGo: 0.75 ->
  // 0.15, halflife 19); with halflife 0, temperature_start before
  // temperature_cutoff_plies and temperature_end after. Default: AlphaZero's
  // pseudocode, visit-proportional for the first 30 plies, then greedy.
  float temperature_start = 1.0f;
  float temperature_end = 0.0f;
  int temperature_halflife_plies = 0;
  int temperature_cutoff_plies = 30;
  // Playout cap randomisation (KataGo, Wu 2019): a move gets a full search
  // (`playouts`, noise, recorded as a training target) with this probability,
  // else a cheap one (`cheap_playouts`, no noise, not a target). KataGo: 0.25,
  // 600 and 100. 1 turns it off: every search full.
  float full_search_fraction = 1.0f;
  int cheap_playouts = 100;
  // Forced playouts and policy-target pruning in full searches (KataGo):
  // a root child with prior P gets at least sqrt(k * P * N) visits, which are
  // pruned again from the target. KataGo: k = 2; 0 turns it off.
  float forced_playouts_k = 2.0f;

  // The root search of self-play: "puct" (Dirichlet noise, forced playouts,
  // visit-count targets and temperature sampling, as AlphaZero and KataGo)
  // or "gumbel" (Gumbel AlphaZero, mcts/gumbel.h: Gumbel-top-k sampling and
  // sequential halving at the root, the completed-Q improved policy as the
  // target, the move the Gumbel draw picks; no noise, no temperature). The
  // engine always searches with PUCT.
  std::string root = "puct";
  // Gumbel: moves sampled at the root (the paper's m = 16), and sigma's
  // c_visit and c_scale (mctx's defaults, 50 and 0.1).
  int gumbel_considered = 16;
  float gumbel_c_visit = 50.0f;
  float gumbel_c_scale = 0.1f;

  // --- Time (the engine, on a clock) --------------------------------------
  // The share of the main time one move may use is 1 / time_moves_to_go (a
  // LOA game lasts about 30-40 moves a side; our estimate), plus most of a
  // byo-yomi period; move_overhead_seconds is kept back for the protocol
  // (lc0's MoveOverheadMs is 200 ms for network play; local play needs less).
  int time_moves_to_go = 20;
  // Under a game clock, a search still unsure at its budget (the second
  // move within half the first's visits) may go on to 1 + this times the
  // budget (MoveTimeLimit); 0 stops at the budget.
  float time_extension = 0;
  // ... and so may one whose value (in [-1, 1]) has fallen at least this
  // far below the value its side's previous search ended with
  // (FallingValue); 0: the value is not watched.
  float time_falling_value = 0;
  double move_overhead_seconds = 0.05;
  // Smart pruning (lc0's smart-pruning-factor): a search stops once no
  // other move can overtake the most visited one in the playouts left (by
  // the visit target, or by the time left at the rate so far) divided by
  // this; 0 never stops early.
  float smart_pruning = 1;

  // --- Randomness ---------------------------------------------------------
  // Seeds every random choice (noise, temperature, playout caps); never the
  // clock (docs/STYLE.md).
  uint64_t seed = 1;

  // The fields in three groups, by who reads them; the seed is in none (it
  // comes from run.seed or a spec's seed).
  // The search proper: budget, PUCT, FPU, solver, tree reuse (the training
  // config's `mcts` section and the `mcts:`/`rollout:` player specs).
  void VisitSearch(ParamVisitor& v);
  // Only self-play's: root noise, temperature, playout caps, forced
  // playouts, the Gumbel root (the training config's `mcts` section).
  void VisitSelfplay(ParamVisitor& v);
  // Only the engine's: threads, batching, tree bound, time management (the
  // player specs).
  void VisitEngine(ParamVisitor& v);
  // All three groups: what Validate checks.
  void Visit(ParamVisitor& v);

  // Throws loa::Error naming the first field out of range.
  void Validate() const;
};

}  // namespace loa
