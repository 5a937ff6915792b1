#include "play/mcts_player.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "mcts/board_size_evaluator.h"
#include "mcts/search.h"
#include "mcts/time_manager.h"
#include "mcts/uniform_evaluator.h"
#include "net/net_evaluator.h"
#include "solve/dfpn.h"

namespace loa {
namespace {

// Returns what a search says, as people watching read it.
MoveAnalysis AnalysisOf(const SearchResult& r) {
  MoveAnalysis a;
  a.available = !r.children.empty();
  a.seconds = r.seconds;
  a.nodes = r.playouts;
  a.reused = int64_t(r.visits) - r.playouts;
  a.value = r.value;
  a.draw = r.draw;
  for (const RootChild& c : r.children) a.top.push_back({c.move, c.visits, c.prior, c.q, c.d});
  std::sort(a.top.begin(), a.top.end(), [](const MoveAnalysis::Candidate& x, const MoveAnalysis::Candidate& y) {
    return x.visits != y.visits ? x.visits > y.visits : x.prior > y.prior;
  });
  a.pv = r.pv;
  return a;
}

// The probe's table: a few probes' worth, cleared each game.
constexpr int64_t kProbeMegabytes = 64;

class SearchPlayer : public Player {
 public:
  SearchPlayer(std::string name, std::shared_ptr<Evaluator> evaluator, const SearchParams& params,
               const SearchLimits& limits, std::function<void(uint64_t)> on_seed, const ProbeSettings& probe)
      : name_(std::move(name)),
        evaluator_(std::move(evaluator)),
        search_(evaluator_.get(), params),
        limits_(limits),
        on_seed_(std::move(on_seed)),
        probe_(probe) {}

  // A net plays the board it was trained on; the uniform and rollout evaluators any.
  bool PlaysBoardSize(int size) const override { return evaluator_->PlaysBoardSize(size); }
  std::string name() const override { return name_; }
  void NewGame() override {
    search_.Clear();
    last_ply_ = -1;
    if (solver_) solver_->Clear();  // the next game's rules may differ
  }
  void SetSeed(uint64_t seed) override {
    if (on_seed_) on_seed_(seed);
  }

  Move ChooseMove(const Game& game, const Clock& clock) override {
    SearchLimits limits = limits_;
    if (clock.timed()) {
      limits.seconds = MoveTimeBudget(clock.main_seconds, clock.byoyomi_seconds, clock.byoyomi_stones, search_.params(),
                                      clock.increment_seconds, clock.moves_to_go);
      limits.max_seconds = MoveTimeLimit(limits.seconds, clock.main_seconds, search_.params());
      if (last_ply_ >= 0 && last_ply_ + 2 == game.ply()) limits.previous_value = last_.value;
    }
    if (probe_.nodes > 0 && ShouldProbe(game)) {
      const auto begin = std::chrono::steady_clock::now();
      if (Move win = ProvenWin(game, limits.seconds); !win.is_null()) return win;
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (limits.seconds > 0) limits.seconds = std::max(limits.seconds - spent, limits.seconds / 10);
    }
    last_ = search_.Run(game, limits);
    last_ply_ = game.ply();
    return last_.best_move;
  }

  Move Analyse(const Game& game, double seconds, int64_t nodes) override {
    return RunWithin(game, seconds, nodes, /*early_stop=*/false);
  }

  // The playouts bound counts the root's visits, those of a reused subtree
  // too (SearchLimits::playouts).
  Move ChooseMoveWithin(const Game& game, double seconds, int64_t nodes) override {
    return RunWithin(game, seconds, nodes, /*early_stop=*/true);
  }

  MoveAnalysis CurrentAnalysis() override { return AnalysisOf(search_.Progress()); }

  void Stop() override { search_.Stop(); }

  // "playouts 5123 value +0.21 draw 0.04 time 0.512 s speed 10006 playouts/s pv a1-b2 ...",
  // with "proven win in 5" in place of the value once the solver knows.
  std::string LastMoveInfo() const override {
    char line[200];
    std::string text = "playouts " + std::to_string(last_.playouts);
    if (last_.proven != Proven::kUnknown) {
      const char* names[] = {"", "win", "draw", "loss"};
      text += std::string(" proven ") + names[int(last_.proven)] + " in " + std::to_string(last_.end_plies);
    } else {
      std::snprintf(line, sizeof(line), " value %+.3f draw %.3f", last_.value, last_.draw);
      text += line;
    }
    std::snprintf(line, sizeof(line), " time %.3f s speed %.0f playouts/s pv", last_.seconds,
                  last_.playouts / std::max(last_.seconds, 1e-9));
    text += line;
    for (Move m : last_.pv) text += " " + FormatMove(m);
    return text;
  }

  MoveAnalysis LastAnalysis() const override { return AnalysisOf(last_); }

 private:
  // Whether the probe runs here: few pieces, or the last search's value extreme.
  bool ShouldProbe(const Game& game) const {
    if (PopCount(game.position().occupied()) <= probe_.pieces) return true;
    return last_ply_ >= 0 && last_ply_ + 2 == game.ply() && std::abs(last_.value) >= probe_.value;
  }

  // Returns the solver's winning move, or the null move when it proves no
  // win within the probe's nodes and half of `seconds` (when given).
  Move ProvenWin(const Game& game, double seconds) {
    if (!solver_) solver_ = std::make_unique<solve::Solver>(kProbeMegabytes);
    solve::SolveLimits limits;
    limits.nodes = probe_.nodes;
    limits.seconds = seconds / 2;
    const solve::SolveResult r = solver_->Solve(game, limits);
    if (r.outcome != solve::Outcome::kWin) return Move();
    last_ = SearchResult();
    last_.best_move = r.best_move;
    last_.proven = Proven::kWin;
    last_.end_plies = r.proof_plies;
    last_.value = 1;
    last_.seconds = r.seconds;
    last_.pv = r.line;
    last_ply_ = game.ply();
    return r.best_move;
  }

  Move RunWithin(const Game& game, double seconds, int64_t nodes, bool early_stop) {
    SearchLimits limits;
    limits.seconds = seconds;
    limits.playouts = int(std::min<int64_t>(nodes, int64_t{1} << 30));
    limits.early_stop = early_stop;
    last_ = search_.Run(game, limits);
    return last_.best_move;
  }

  std::string name_;
  std::shared_ptr<Evaluator> evaluator_;
  Search search_;
  SearchLimits limits_;
  std::function<void(uint64_t)> on_seed_;
  SearchResult last_;
  int last_ply_ = -1;  // the ply of the position last_ searched; -1: none this game
  ProbeSettings probe_;
  std::unique_ptr<solve::Solver> solver_;  // the probe's, made at its first use
};

// The keys of an mcts spec beyond the search's and the evaluator's own.
struct MctsSpec {
  std::string net;
  std::string evaluator;
  double time = 0;
  ProbeSettings probe;

  void Visit(ParamVisitor& v) {
    v.String("net", net, true, "an export (.safetensors) or a checkpoint (.pt)");
    v.Choice("evaluator", evaluator, {"", "net", "uniform"}, "net (with net=FILE) or uniform");
    v.Double("time", time, 0, 1e6, "seconds per move; a timed clock overrides it");
    probe.Visit(v);
  }
};

// The keys of `mcts:`, each from its one declaration: the player's own,
// the search proper and the engine's (SearchParams), and the evaluator's.
void VisitMctsKeys(ParamVisitor& v, MctsSpec& keys, SearchParams& params, NetEvaluatorOptions& options) {
  keys.Visit(v);
  params.VisitSearch(v);
  params.VisitEngine(v);
  options.Visit(v);
}

}  // namespace

std::vector<ParamInfo> MctsPlayerKeys() {
  MctsSpec keys;
  SearchParams params = EngineSearchParams();
  NetEvaluatorOptions options;
  ParamLister lister;
  VisitMctsKeys(lister, keys, params, options);
  return lister.params();
}

SearchParams EngineSearchParams(SearchParams params) {
  // The play-time levers that won at equal time (docs/ENGINE.md); self-play
  // searches without them.
  params.policy_temperature = kEnginePolicyTemperature;
  params.leaves_per_batch = kEngineLeavesPerBatch;
  params.dirichlet_epsilon = 0;
  params.temperature_start = params.temperature_end = 0;
  params.full_search_fraction = 1;
  params.forced_playouts_k = 0;
  return params;
}

void ProbeSettings::Visit(ParamVisitor& v) {
  v.Int64("probe_nodes", nodes, 0, int64_t{1} << 40, "the solver at play time: positions a probe may search (0: none)");
  v.Int("probe_pieces", pieces, 2, 24, "probe where the board holds at most this many pieces");
  v.Double("probe_value", value, 0, 1, "probe where the last search's value was at least this either way");
}

std::unique_ptr<Player> MakeSearchPlayer(std::string name, std::shared_ptr<Evaluator> evaluator,
                                         const SearchParams& params, const SearchLimits& limits,
                                         std::function<void(uint64_t)> on_seed, ProbeSettings probe) {
  params.Validate();
  return std::make_unique<SearchPlayer>(std::move(name), std::move(evaluator), params, limits, std::move(on_seed),
                                        probe);
}

std::string ShippedNetPath(int size) {
  for (const ShippedNet& net : kShippedNets) {
    if (net.size != size) continue;
    if (const char* env = std::getenv("LOAZ_NETS"); env && *env) return std::string(env) + "/" + net.file;
    return InstalledFile(std::string("nets/") + net.file, std::string(LOAZ_NETS_DIR) + "/" + net.file);
  }
  return "";
}

namespace {

// The net $LOAZ_NET names for every board, or "".
std::string NetOfEnvironment() {
  const char* env = std::getenv("LOAZ_NET");
  return env ? env : "";
}

}  // namespace

std::string DefaultNetPath() {
  const std::string named = NetOfEnvironment();
  return named.empty() ? ShippedNetPath(kBoardSize) : named;
}

std::string DefaultEngineSpec() {
  const unsigned cores = std::thread::hardware_concurrency();
  return "mcts:time=1,threads=" + std::to_string(std::clamp(cores, 1u, 2u));
}

std::string NetPlayerSpec(const std::string& net, int playouts) {
  if (net.find_first_of(",=\n") != std::string::npos)
    throw ParseError("net '" + Excerpt(net, 80) +
                     "': a path with ',', '=' or a newline cannot be named in a player spec");
  return "mcts:net=" + net + ",playouts=" + std::to_string(playouts);
}

namespace {

// An mcts spec read: its own keys, the search's and the evaluator's.
struct MctsSpecKeys {
  MctsSpec keys;
  SearchParams params = EngineSearchParams();
  NetEvaluatorOptions options;

  explicit MctsSpecKeys(const PlayerSpec& spec) {
    spec.ReadExactly([&](ParamVisitor& v) { VisitMctsKeys(v, keys, params, options); });
    // Every thread may have a batch of leaves in flight.
    options.max_batch = std::max(options.max_batch, params.threads * params.leaves_per_batch);
  }
};

}  // namespace

namespace {

// The shipped nets whose files are there, keyed by board size.
std::map<int, std::string> ShippedNetFiles() {
  std::map<int, std::string> files;
  for (const ShippedNet& net : kShippedNets)
    if (const std::string path = ShippedNetPath(net.size); std::filesystem::is_regular_file(path))
      files[net.size] = path;
  return files;
}

// Returns the evaluator an mcts spec's keys name: "net" (keys.net then
// the file, $LOAZ_NET's where none is given), "shipped" (each board's
// shipped net: no net= and no $LOAZ_NET) or "uniform"; throws ParseError
// naming the spec where they do not name one.
std::string EvaluatorOf(const PlayerSpec& spec, MctsSpec& keys) {
  auto fail = [&](const std::string& why) { throw ParseError("player '" + Excerpt(spec.text()) + "': " + why); };
  if (keys.net.empty() && keys.evaluator.empty()) {
    keys.net = NetOfEnvironment();
    if (keys.net.empty() && !ShippedNetFiles().empty()) return "shipped";
    if (keys.net.empty()) keys.net = DefaultNetPath();
    if (!std::filesystem::is_regular_file(keys.net))
      fail("no net= given, and the default net " + keys.net + " does not exist (set LOAZ_NET or give net=FILE)");
  }
  const std::string kind = keys.evaluator.empty() ? "net" : keys.evaluator;
  if (kind == "uniform" && !keys.net.empty()) fail("net= and evaluator=uniform exclude each other");
  if (kind == "net" && keys.net.empty()) fail("evaluator=net needs net=FILE");
  if (kind != "net" && kind != "uniform") fail("needs net=FILE or evaluator=uniform");
  return kind;
}

// The evaluator of a spec read once into *read.
std::shared_ptr<Evaluator> EvaluatorFor(const PlayerSpec& spec, MctsSpecKeys& read) {
  const std::string kind = EvaluatorOf(spec, read.keys);
  if (kind == "uniform") return std::make_shared<UniformEvaluator>();
  if (kind == "net") return MakeNetEvaluator(read.keys.net, read.options);
  std::map<int, std::unique_ptr<Evaluator>> by_size;
  for (const auto& [size, file] : ShippedNetFiles()) {
    by_size[size] = MakeNetEvaluator(file, read.options);
    if (!by_size[size]->PlaysBoardSize(size))
      throw Error(file + ": the shipped net of the " + std::to_string(size) + "x" + std::to_string(size) +
                  " board was trained on another");
  }
  return std::make_shared<BoardSizeEvaluator>(std::move(by_size));
}

}  // namespace

std::shared_ptr<Evaluator> MakeMctsEvaluator(const PlayerSpec& spec) {
  MctsSpecKeys read(spec);
  return EvaluatorFor(spec, read);
}

void CheckMctsSpec(const PlayerSpec& spec) {
  MctsSpecKeys read(spec);
  if (EvaluatorOf(spec, read.keys) == "net" && !std::filesystem::is_regular_file(read.keys.net))
    throw ParseError("player '" + Excerpt(spec.text()) + "': net " + read.keys.net + ": no such file");
}

std::unique_ptr<Player> MakeMctsPlayer(const PlayerSpec& spec, std::shared_ptr<Evaluator> shared) {
  MctsSpecKeys read(spec);
  // playouts= (declared by SearchParams) is a limit of its own; without it
  // and without time=, the search stops at params.playouts.
  SearchLimits limits;
  limits.playouts = spec.Has("playouts") ? read.params.playouts : 0;
  limits.seconds = read.keys.time;
  if (!shared) shared = EvaluatorFor(spec, read);
  return MakeSearchPlayer(spec.text(), std::move(shared), read.params, limits, {}, read.keys.probe);
}

}  // namespace loa
