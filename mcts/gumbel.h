#pragma once
// Gumbel AlphaZero's root search (Danihelka, Guez, Schrittwieser, Silver,
// "Policy improvement by planning with Gumbel", ICLR 2022), as DeepMind's
// mctx implements it: the root's moves are sampled without replacement by
// Gumbel-top-k, sequential halving spreads the simulations over them, and
// the policy target is the improved policy softmax(logits + sigma(completed
// Q)), which improves on the prior even with few simulations. Below the
// root the search stays PUCT.

#include <cstdint>
#include <vector>

#include "mcts/root_stats.h"
#include "mcts/search_params.h"

namespace loa {

// Returns, for each simulation k in [0, n), the visit count that the move
// simulation k visits has before it (mctx's
// get_sequence_of_considered_visits): m moves get one visit each, then the
// better half of them more, and so on, each phase given about
// n / (ceil(log2 m) * considered) visits per move.
std::vector<uint32_t> ConsideredVisits(int m, int n);

// Returns sigma(completed Q) for each child (mctx's
// qtransform_completed_by_mix_value): a visited (or proven) child's Q, an
// unvisited one's the mixed value of the raw value and the visited
// children's prior-weighted Q; rescaled to [0, 1] over the children; times
// (gumbel_c_visit + the most visits of a child) * gumbel_c_scale.
// raw_value is the net's value of the root for its side to move.
std::vector<float> SigmaCompletedQ(const std::vector<RootChild>& children, float raw_value, const SearchParams& params);

// Returns the improved policy softmax(log prior + sigma(completed Q)) over
// every child, the policy target of a Gumbel search.
std::vector<MoveProbability> GumbelPolicyTarget(const std::vector<RootChild>& children, float raw_value,
                                                const SearchParams& params);

// Returns the index of the child to visit next: among the children whose
// visits (with those in flight) equal considered_visits, the one of highest
// gumbel + log prior + sigma; a proven win at once, never a proven loss
// while another move is not one. `visits` counts the visits in flight too;
// `sigma` is SigmaCompletedQ. When no child has considered_visits, the
// least visited of the best-scored ones.
int GumbelSelect(const std::vector<RootChild>& children, const std::vector<uint32_t>& visits,
                 const std::vector<float>& gumbel, const std::vector<float>& sigma, uint32_t considered_visits);

// Returns the move a Gumbel search plays: a proven win (ChooseBestMove),
// else among the most visited children the one of highest gumbel + log
// prior + sigma.
Move GumbelChooseMove(const std::vector<RootChild>& children, const std::vector<float>& gumbel, float raw_value,
                      const SearchParams& params);

}  // namespace loa
