// rollout:sims=N: the PUCT search with its solver over random playouts
// (mcts/rollout_evaluator.h): MCTS-Solver as Winands, Bjornsson and Saito
// showed it on LOA, on the project's one search tree.

#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/param_visitor.h"
#include "core/random.h"
#include "mcts/rollout_evaluator.h"
#include "play/mcts_player.h"
#include "play/player_kinds.h"

namespace loa {
namespace {

constexpr int64_t kDefaultSeed = 1;
constexpr int kDefaultSimulations = 1000;

// Shows the fields it is shown to `inner`, but for the keys it hides.
class ParamFilter : public ParamVisitor {
 public:
  ParamFilter(ParamVisitor& inner, std::set<std::string> hidden) : inner_(inner), hidden_(std::move(hidden)) {}
  void Int64(const char* key, int64_t& value, int64_t min, int64_t max, const char* help) override {
    if (!hidden_.count(key)) inner_.Int64(key, value, min, max, help);
  }
  void Double(const char* key, double& value, double min, double max, const char* help) override {
    if (!hidden_.count(key)) inner_.Double(key, value, min, max, help);
  }
  void Bool(const char* key, bool& value, const char* help) override {
    if (!hidden_.count(key)) inner_.Bool(key, value, help);
  }
  void String(const char* key, std::string& value, bool allow_empty, const char* help) override {
    if (!hidden_.count(key)) inner_.String(key, value, allow_empty, help);
  }
  void Choice(const char* key, std::string& value, const std::vector<std::string>& choices, const char* help) override {
    if (!hidden_.count(key)) inner_.Choice(key, value, choices, help);
  }
  void StringList(const char* key, std::vector<std::string>& value, const char* help) override {
    if (!hidden_.count(key)) inner_.StringList(key, value, help);
  }
  void Records(const char* key, RecordList& list, const char* help) override {
    if (!hidden_.count(key)) inner_.Records(key, list, help);
  }

 private:
  ParamVisitor& inner_;
  const std::set<std::string> hidden_;
};

// The engine's parameters without the net engine's levers (decided for a
// net's priors and int8 batches, not for random playouts): the rollout
// player stays the reference it was.
SearchParams RolloutSearchParams() {
  SearchParams params = EngineSearchParams();
  params.policy_temperature = 1;
  params.leaves_per_batch = 1;
  return params;
}

// The keys of `rollout:`: its own, then the search's and the engine's
// (SearchParams), whose playouts= the sims= key replaces.
struct RolloutKeys {
  int simulations = kDefaultSimulations, playouts_per_leaf = 1;
  int64_t seed = kDefaultSeed;
  SearchParams params = RolloutSearchParams();
  void Visit(ParamVisitor& v) {
    v.Int("sims", simulations, 1, 10'000'000, "simulations (root visits) per move");
    v.Int("rollouts", playouts_per_leaf, 1, 1000, "random playouts averaged at each new leaf");
    v.Int64("seed", seed, 0, std::numeric_limits<int64_t>::max(), "seeds the playouts");
    ParamFilter search(v, {"playouts"});
    params.VisitSearch(search);
    params.VisitEngine(v);
  }
};

}  // namespace

std::vector<ParamInfo> RolloutPlayerKeys() { return ListKeys<RolloutKeys>(); }

void CheckRolloutSpec(const PlayerSpec& spec) { ReadKeys<RolloutKeys>(spec); }

std::unique_ptr<Player> MakeRolloutPlayer(const PlayerSpec& spec) {
  const RolloutKeys keys = ReadKeys<RolloutKeys>(spec);
  const int simulations = keys.simulations, playouts_per_leaf = keys.playouts_per_leaf;
  const int64_t seed = keys.seed;
  SearchParams params = keys.params;
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
