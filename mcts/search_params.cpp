#include "mcts/search_params.h"

#include <string>

#include "core/error.h"
#include "core/move.h"
#include "core/param_visitor.h"
#include "mcts/node.h"

namespace loa {

void SearchParams::VisitSearch(ParamVisitor& v) {
  v.Int("playouts", playouts, 1, kMaxPlayouts, "root visits per move (a reused subtree's visits count)");
  v.Float("cpuct_init", cpuct_init, 0, 100, "PUCT exploration c(N) = cpuct_init + cpuct_factor * log((N+base+1)/base)");
  v.Float("cpuct_base", cpuct_base, 1, 1e9, "the base of the PUCT exploration's log term");
  v.Float("cpuct_factor", cpuct_factor, 0, 100, "the factor of the PUCT exploration's log term");
  v.Float("cpuct_stdev_scale", cpuct_stdev_scale, 0, 1,
          "exploration times 1 + this x (the spread of the node's values / 0.4 - 1), KataGo's (0: off)");
  v.Float("fpu_reduction", fpu_reduction, -2, 2, "first-play urgency: parent Q minus this * sqrt(visited prior)");
  v.Float("fpu_reduction_root", fpu_reduction_root, -2, 2, "the same at the root (0 in a search with noise)");
  v.Bool("solver", solver, "back up proven wins, losses and draws (MCTS-Solver)");
  v.Bool("reuse_tree", reuse_tree, "keep the subtree of the move played for the next search");
}

void SearchParams::VisitSelfplay(ParamVisitor& v) {
  v.Float("dirichlet_alpha", dirichlet_alpha, 1e-4, 100, "root Dirichlet noise concentration (self-play)");
  v.Float("dirichlet_epsilon", dirichlet_epsilon, 0, 1, "root noise weight (0: no noise)");
  v.Float("temperature_start", temperature_start, 0, 100, "move-sampling temperature at the first ply");
  v.Float("temperature_end", temperature_end, 0, 100, "move-sampling temperature late in the game (0: best move)");
  v.Int("temperature_halflife_plies", temperature_halflife_plies, 0, 100000,
        "plies in which the temperature halves its way to the end value (0: a step at the cutoff)");
  v.Int("temperature_cutoff_plies", temperature_cutoff_plies, 0, 100000,
        "with halflife 0: plies played at the start temperature");
  v.Float("full_search_fraction", full_search_fraction, 0.001, 1,
          "playout cap randomisation: share of moves with a full, recorded search");
  v.Int("cheap_playouts", cheap_playouts, 1, kMaxPlayouts, "playouts of a cheap (unrecorded) search");
  v.Float("forced_playouts_k", forced_playouts_k, 0, 100, "forced playouts sqrt(k * P * N) at the root (0: off)");
  v.Choice("root", root, {"puct", "gumbel"}, "self-play's root search: PUCT with noise, or Gumbel AlphaZero's");
  v.Int("gumbel_considered", gumbel_considered, 1, kMaxMoves, "Gumbel root: moves sampled (m)");
  v.Float("gumbel_c_visit", gumbel_c_visit, 0, 1e6, "Gumbel root: sigma's c_visit");
  v.Float("gumbel_c_scale", gumbel_c_scale, 0, 1e3, "Gumbel root: sigma's c_scale");
}

void SearchParams::VisitEngine(ParamVisitor& v) {
  v.Int("threads", threads, 1, 1024, "search threads of one game (the engine)");
  v.Int("leaves_per_batch", leaves_per_batch, 1, 4096, "leaves one engine thread gathers per evaluator call");
  v.Bool("multi_gather", multi_gather, "one descent gathers a batch's leaves (lc0's multi-gather)");
  v.Int64("max_tree_nodes", max_tree_nodes, int64_t{1} << 10, int64_t{1} << 31, "the engine's tree size bound");
  v.Float("virtual_loss", virtual_loss, 0, 100, "virtual losses of an in-flight playout per node");
  v.Float("lcb_z", lcb_z, 0, 10,
          "the move played: highest lower confidence bound Q - z stdev / sqrt(N) among moves of 15% of the "
          "most visits (0: the most visited)");
  v.Float("policy_temperature", policy_temperature, 0.1, 10,
          "the priors as p^(1/T), renormalised (lc0's policy softmax temperature; 1: the net's)");
  v.Int("time_moves_to_go", time_moves_to_go, 1, 1000, "a move on a clock may use 1/this of the main time");
  v.Double("move_overhead_seconds", move_overhead_seconds, 0, 60, "time kept back per move for the protocol");
  v.Float("time_extension", time_extension, 0, 10,
          "on a clock, a search unsure at its budget may take 1 + this times it (0: never)");
  v.Float("time_falling_value", time_falling_value, 0, 2,
          "on a clock, a search whose value fell this far since its last move may take the extension too (0: never)");
  v.Float("smart_pruning", smart_pruning, 0, 10,
          "stop once no other move can overtake the best in the playouts left / this (0: never early)");
}

void SearchParams::Visit(ParamVisitor& v) {
  VisitSearch(v);
  VisitSelfplay(v);
  VisitEngine(v);
}

void SearchParams::Validate() const {
  CheckParamRanges(*this, "search parameter");
  if (int64_t(threads) * leaves_per_batch > Node::kMaxInFlight)
    throw Error(
        "search parameters: threads x leaves_per_batch = " + std::to_string(int64_t(threads) * leaves_per_batch) +
        ", above the " + std::to_string(Node::kMaxInFlight) + " playouts one node can have in flight");
}

}  // namespace loa
