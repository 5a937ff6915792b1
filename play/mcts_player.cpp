#include "play/mcts_player.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "mcts/search.h"
#include "mcts/time_manager.h"
#include "mcts/uniform_evaluator.h"
#include "net/net_evaluator.h"

namespace loa {
namespace {

// Root visits per move when the spec sets neither playouts nor time
// (AlphaZero's 800 per move).
constexpr int kDefaultPlayouts = 800;

class MctsPlayer : public Player {
 public:
  MctsPlayer(std::string name, std::unique_ptr<Evaluator> evaluator, const SearchParams& params,
             const SearchLimits& limits)
      : name_(std::move(name)), evaluator_(std::move(evaluator)), search_(evaluator_.get(), params), limits_(limits) {}

  std::string name() const override { return name_; }
  void NewGame() override { search_.Clear(); }

  Move ChooseMove(const Game& game, const Clock& clock) override {
    SearchLimits limits = limits_;
    if (clock.timed())
      limits.seconds =
          MoveTimeBudget(clock.main_seconds, clock.byoyomi_seconds, clock.byoyomi_stones, search_.params());
    if (limits.playouts == 0 && limits.seconds <= 0) limits.playouts = kDefaultPlayouts;
    return search_.Run(game, limits).best_move;
  }

 private:
  std::string name_;
  std::unique_ptr<Evaluator> evaluator_;
  Search search_;
  SearchLimits limits_;
};

// Returns the evaluator the spec names.
std::unique_ptr<Evaluator> MakeEvaluator(const PlayerSpec& spec, int search_threads) {
  const std::string file = spec.GetString("net", "");
  const std::string kind = spec.GetString("evaluator", file.empty() ? "" : "net");
  auto fail = [&](const std::string& why) -> std::unique_ptr<Evaluator> {
    throw ParseError("player '" + spec.text() + "': " + why);
  };
  if (kind == "uniform") {
    if (!file.empty()) return fail("net= and evaluator=uniform exclude each other");
    return std::make_unique<UniformEvaluator>();
  }
  if (kind != "net")
    return fail(kind.empty() ? "needs net=FILE or evaluator=uniform"
                             : "evaluator=" + kind + " (expected net or uniform)");
  if (file.empty()) return fail("evaluator=net needs net=FILE");
  NetEvaluatorOptions options;
  options.device = spec.GetString("device", options.device);
  options.backend = spec.GetString("backend", options.backend);
  options.threads = int(spec.GetInt("inference_threads", options.threads, 1, 1024));
  options.cache_entries = std::size_t(spec.GetInt("cache", int64_t(options.cache_entries), 0, int64_t{1} << 32));
  options.max_batch = std::max(options.max_batch, search_threads * int(spec.GetInt("batch", 1, 1, 4096)));
  return MakeNetEvaluator(file, options);
}

}  // namespace

std::unique_ptr<Player> MakeMctsPlayer(const PlayerSpec& spec) {
  spec.CheckKeys({"net", "evaluator", "playouts", "time", "threads", "batch", "cpuct", "solver", "reuse", "device",
                  "backend", "inference_threads", "cache"});
  SearchParams params;
  params.threads = int(spec.GetInt("threads", 1, 1, 1024));
  params.leaves_per_batch = int(spec.GetInt("batch", 1, 1, 4096));
  params.cpuct_init = float(spec.GetDouble("cpuct", params.cpuct_init, 0, 100));
  params.solver = spec.GetInt("solver", params.solver, 0, 1) != 0;
  params.reuse_tree = spec.GetInt("reuse", params.reuse_tree, 0, 1) != 0;
  // The engine plays its best move: no noise, no sampling, no playout caps.
  params.dirichlet_epsilon = 0;
  params.temperature_start = params.temperature_end = 0;
  params.full_search_fraction = 1;
  params.forced_playouts_k = 0;
  SearchLimits limits;
  limits.playouts = int(spec.GetInt("playouts", 0, 1, 1 << 30));
  limits.seconds = spec.GetDouble("time", 0, 1e-3, 1e6);
  params.playouts = limits.playouts > 0 ? limits.playouts : kDefaultPlayouts;
  std::unique_ptr<Evaluator> evaluator = MakeEvaluator(spec, params.threads);
  return std::make_unique<MctsPlayer>(spec.text(), std::move(evaluator), params, limits);
}

}  // namespace loa
