#include "mcts/selfplay_driver.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "core/random_play.h"
#include "mcts/gumbel.h"

namespace loa {

struct SelfPlayDriver::Slot {
  explicit Slot(const SearchParams& params) : tree(params) {}
  bool active = false;
  SelfPlayGame record;
  SearchTree tree;
  TreeScratch scratch;  // the tree's, for this slot's gathers and backups
  Rng rng;
  bool full = true;
  uint32_t visit_target = 0;
  std::vector<Leaf> leaves;
  std::unordered_set<uint64_t> proven_seen;  // the hashes of the game's tree proofs
  std::vector<ProvenPosition> proofs;        // KeepTreeProofs's scratch
};

SelfPlayDriver::SelfPlayDriver(Evaluator* evaluator, const SearchParams& params, const Rules& rules,
                               const SelfPlayGames& games)
    : evaluator_(evaluator),
      params_(params),
      gumbel_(params.root == "gumbel"),
      rules_(rules),
      games_(games),
      next_game_(games.first),
      end_game_(games.count < 0 ? std::numeric_limits<int64_t>::max() : games.first + games.count) {
  params_.Validate();
  assert(games.parallel > 0);
  for (int i = 0; i < games.parallel; ++i) {
    slots_.push_back(std::make_unique<Slot>(params_));
    slots_.back()->leaves.resize(params_.leaves_per_batch);
    if (StartGame(*slots_.back())) ++active_;
  }
  positions_.reserve(size_t(games.parallel) * params_.leaves_per_batch);
  outputs_.resize(size_t(games.parallel) * params_.leaves_per_batch);
}

SelfPlayDriver::~SelfPlayDriver() = default;

void SelfPlayDriver::set_playouts(int full, int cheap) {
  SearchParams changed = params_;
  changed.playouts = full;
  changed.cheap_playouts = cheap;
  changed.Validate();
  params_ = changed;
}

bool SelfPlayDriver::StartGame(Slot& slot) {
  slot.active = next_game_ < end_game_;
  if (!slot.active) return false;
  slot.record = SelfPlayGame();
  slot.record.index = next_game_++;
  slot.record.game = Game(rules_);
  slot.rng.Seed(GameSeed(games_.seed, slot.record.index));
  slot.proven_seen.clear();
  if (games_.random_opening_plies > 0) {
    Game opening(rules_);
    for (int ply = 0; ply < games_.random_opening_plies && !opening.over(); ++ply) {
      MoveList moves;
      opening.LegalMoves(moves);
      opening.Play(RandomMove(moves, slot.rng));
    }
    if (!opening.over()) slot.record.game = Game(rules_, opening.position());
  }
  slot.tree.Clear();
  BeginMove(slot);
  return true;
}

void SelfPlayDriver::BeginMove(Slot& slot) {
  // Draw order per move: the playout cap, then the root noise (or the Gumbel
  // draws, when the root is expanded), then the move.
  slot.full = params_.full_search_fraction >= 1 || slot.rng.Uniform() < params_.full_search_fraction;
  slot.visit_target = uint32_t(slot.full ? params_.playouts : params_.cheap_playouts);
  if (gumbel_) {
    // Sequential halving counts every visit from a fresh root.
    slot.tree.SetRoot(slot.record.game, false);
    slot.tree.BeginSearch(false, false, &slot.rng);
    slot.tree.UseGumbelRoot(std::max(1, int(slot.visit_target) - 1));  // the first visit expands the root
    return;
  }
  const bool noise = slot.full && params_.dirichlet_epsilon > 0;
  slot.tree.SetRoot(slot.record.game, params_.reuse_tree && !noise);
  slot.tree.BeginSearch(noise, slot.full, &slot.rng);
}

void SelfPlayDriver::FinishMove(Slot& slot, std::vector<SelfPlayGame>* finished) {
  Game& game = slot.record.game;
  SearchedMove searched;
  searched.position = game.position();
  const std::vector<RootChild> children = slot.tree.RootChildren();
  if (gumbel_) {
    // A proven root keeps the exact target of its proof.
    const float raw = slot.tree.RootRawValue();
    searched.policy = slot.tree.RootProven() != Proven::kUnknown ? PolicyTarget(children, params_, false)
                                                                 : GumbelPolicyTarget(children, raw, params_);
    searched.move = GumbelChooseMove(children, slot.tree.root_gumbel(), raw, params_);
  } else {
    searched.policy = PolicyTarget(children, params_, slot.full);
    const float temperature = MoveTemperature(params_, game.ply());
    searched.move = temperature <= kGreedyTemperature ? ChooseBestMove(children)
                                                      : SampleMove(searched.policy, temperature, slot.rng);
  }
  searched.root_value = slot.tree.RootValue();
  searched.root_draw = slot.tree.RootDraw();
  searched.proven = slot.tree.RootProven();
  searched.visits = slot.tree.root_visits();
  searched.full_search = slot.full;
  if (slot.full) searched.surprise = float(PolicySurprise(searched.policy, children));
  if (games_.tree_proofs > 0) KeepTreeProofs(slot);
  game.Play(searched.move);
  slot.record.moves.push_back(std::move(searched));
  ++moves_played_;
  if (!game.over() && !(resign_check_ && resign_check_(slot.record))) {
    BeginMove(slot);
    return;
  }
  finished->push_back(std::move(slot.record));
  if (!StartGame(slot)) --active_;
}

void SelfPlayDriver::KeepTreeProofs(Slot& slot) {
  slot.proofs.clear();
  slot.tree.ProvenPositions(!slot.full, &slot.proofs);
  // The longest proofs first: the deep positions the value misses most.
  std::stable_sort(slot.proofs.begin(), slot.proofs.end(),
                   [](const ProvenPosition& a, const ProvenPosition& b) { return a.plies > b.plies; });
  int kept = 0;
  for (const ProvenPosition& p : slot.proofs) {
    if (kept == games_.tree_proofs || p.plies < kMinTreeProofPlies) break;
    if (!slot.proven_seen.insert(p.position.hash()).second) continue;
    slot.record.tree_proofs.push_back({p, slot.record.game.ply()});
    ++kept;
  }
}

void SelfPlayDriver::Step(std::vector<SelfPlayGame>* finished) {
  positions_.clear();
  owners_.clear();
  for (int s = 0; s < int(slots_.size()); ++s) {
    Slot& slot = *slots_[s];
    while (slot.active) {
      bool collided = false;
      const int count =
          slot.tree.Gather(int(slot.leaves.size()), slot.visit_target, slot.leaves.data(), &collided, slot.scratch);
      if (count > 0) {
        for (int i = 0; i < count; ++i) {
          positions_.push_back(slot.leaves[i].position);
          owners_.emplace_back(s, i);
        }
        break;
      }
      // Nothing is in flight between rounds, so no leaf means the search is over.
      assert(!collided && slot.tree.Done(slot.visit_target));
      FinishMove(slot, finished);
    }
  }
  if (positions_.empty()) return;
  const int count = int(positions_.size());
  evaluator_->Evaluate(positions_.data(), count, outputs_.data());
  evaluations_ += count;
  for (int i = 0; i < count; ++i) {
    Slot& slot = *slots_[owners_[i].first];
    slot.tree.ExpandAndBackup(&slot.leaves[owners_[i].second], &outputs_[i], 1, slot.scratch);
  }
}

}  // namespace loa
