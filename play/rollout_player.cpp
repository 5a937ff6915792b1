// rollout:sims=N: the PUCT search with its solver over random playouts
// (mcts/rollout_evaluator.h): MCTS-Solver as Winands, Bjornsson and Saito
// showed it on LOA, on the project's one search tree.

#include <limits>

#include "core/params.h"
#include "core/random.h"
#include "mcts/rollout_evaluator.h"
#include "play/mcts_player.h"
#include "play/players.h"

namespace loa {
namespace {

constexpr int64_t kDefaultSeed = 1;
constexpr int kDefaultSimulations = 1000;

}  // namespace

std::unique_ptr<Player> MakeRolloutPlayer(const PlayerSpec& spec) {
  int simulations = kDefaultSimulations, playouts_per_leaf = 1;
  int64_t seed = kDefaultSeed;
  SearchParams params = EngineSearchParams();
  spec.Read([&](ParamVisitor& v) {
    v.Int("sims", simulations, 1, 10'000'000, "simulations (root visits) per move");
    v.Int("rollouts", playouts_per_leaf, 1, 1000, "random playouts averaged at each new leaf");
    v.Int64("seed", seed, 0, std::numeric_limits<int64_t>::max(), "seeds the playouts");
    params.Visit(v);
  });
  spec.CheckKeys();
  params.playouts = simulations;
  // Random playouts say nothing of the moves: no prior to trust, so FPU
  // reduction would only starve unvisited moves.
  if (!spec.Has("fpu_reduction")) params.fpu_reduction = 0;
  if (!spec.Has("fpu_reduction_root")) params.fpu_reduction_root = 0;
  auto evaluator = std::make_unique<RolloutEvaluator>(uint64_t(seed), playouts_per_leaf);
  RolloutEvaluator* rollouts = evaluator.get();
  SearchLimits limits;
  limits.playouts = simulations;
  return MakeSearchPlayer(spec.text(), std::move(evaluator), params, limits, [rollouts, seed](uint64_t match_seed) {
    rollouts->Reseed(MixSeed(uint64_t(seed), match_seed));
  });
}

}  // namespace loa
