#pragma once
// From a finished self-play game to its training samples: the outcome
// (played out, capped or resigned), the resignation test, the samples.

#include <cstdint>
#include <vector>

#include "core/game.h"
#include "core/random.h"
#include "mcts/selfplay_driver.h"
#include "solve/dfpn.h"
#include "train/shard.h"

namespace loa::train {

// How a self-play game ended.
struct GameOutcome {
  Result result = Result::kDraw;  // never kOngoing
  bool resigned = false;          // the loser resigned
  bool capped = false;            // the move cap ended it (a draw)
};

// Returns whether the player who made the last move of g resigns: its root
// values at its last `consecutive` moves are all below threshold (AlphaZero's
// resignation, on the search's value for the side to move).
bool WouldResign(const SelfPlayGame& g, double threshold, int consecutive);

// Returns the outcome of a game the driver finished: by the rules when the
// game is over, else a resignation by the player who moved last.
GameOutcome OutcomeOf(const SelfPlayGame& g);

// Appends g to shard as its next game (shard->games grows by one, its
// final board joins shard->finals) and its samples: one per full search
// whose position has a move other than the pass, with the search's policy
// target, the outcome for the side to move, the root value, the plies
// left and the opponent's reply (the move played next, from a full or a
// cheap search; none after the last move or before a pass). The final
// board is the game's last position, a resigned game's too. Returns the
// samples added; the game's index is shard->games - 1.
//
// With surprise_share > 0 (KataGo's policy-surprise weighting), a sample's
// weight is (1 - share) + share * surprise / (the game's mean surprise), and
// a sample of weight w is written floor(w) times and once more with
// probability frac(w), drawn from rng: the game keeps its expected number
// of samples, moved towards the positions where the search disagreed with
// the net.
//
// With proven (ProveSamples's or RootProofs's answer for g), a position it
// proved takes the proven result as its outcome, flagged kProven.
//
// Then each of g.tree_proofs once, a value target alone: its proven result
// as outcome and root value, its proof's length as the plies left, flagged
// kProven | kTreeProof, with no policy target, reply or ownership.
int AppendGame(const SelfPlayGame& g, const GameOutcome& outcome, Shard* shard, double surprise_share = 0,
               Rng* rng = nullptr, const std::vector<int8_t>* proven = nullptr);

// ProveSamples's mark of a ply not proven (or not a sample).
inline constexpr int8_t kUnproven = -128;

// The searches' own verdicts on g's sampled positions, as ProveSamples
// gives them: +1 or -1 where a full search's root was proven won or lost
// by its MCTS-Solver, else kUnproven (draws left out, as
// SearchTree::ProvenPositions leaves them).
std::vector<int8_t> RootProofs(const SelfPlayGame& g);

// Fills the plies of *proven that are kUnproven from `more` (same length).
void MergeProofs(const std::vector<int8_t>& more, std::vector<int8_t>* proven);

// The solver's verdicts on g's sampled positions: for each ply, +1, 0 or -1
// for the side to move there (won, drawn, lost, under the game's rules and
// with its history), or kUnproven. Plies are solved from the last back, each
// within `nodes` df-pn nodes, so that each proof starts from the table the
// later ones filled; after `give_up` unproven samples in a row the earlier
// plies are left unproven (a position further from the end is rarely easier).
std::vector<int8_t> ProveSamples(const SelfPlayGame& g, solve::Solver* solver, int64_t nodes, int give_up);

}  // namespace loa::train
