// The random, greedy and alpha-beta players.

#include <algorithm>
#include <cstdio>
#include <limits>
#include <mutex>

#include "alphabeta/search.h"
#include "alphabeta/weights_file.h"
#include "core/error.h"
#include "core/notation.h"
#include "core/random.h"
#include "mcts/search_params.h"
#include "mcts/time_manager.h"
#include "play/player_kinds.h"

namespace loa {
namespace {

// The seed of a player whose spec names none.
constexpr int64_t kDefaultSeed = 1;
// The time per move of `ab` when its spec sets no limit.
constexpr double kDefaultMoveSeconds = 1.0;
// The transposition table of `ab`, in MiB, unless the spec says.
constexpr int kDefaultHashMegabytes = 16;

// The keys of `random` and `greedy`.
struct SeedKeys {
  int64_t seed = kDefaultSeed;
  void Visit(ParamVisitor& v) {
    v.Int64("seed", seed, 0, std::numeric_limits<int64_t>::max(), "seeds the random choices (ties, for greedy)");
  }
};

// The keys of `ab`: any combination of limits (0: none; time=1 when none is
// given), the version, the threads, the table's size, the weights file, and
// a switch per search technique (each defaulting to the version's choice).
struct AlphaBetaKeys {
  int64_t depth = 0, nodes = 0, hash = kDefaultHashMegabytes, threads = 1, version = ab::kLatestVersion;
  double time = 0;
  std::string weights;
  ab::SearchOptions options;
  void Visit(ParamVisitor& v) {
    v.Int64("version", version, 1, ab::kLatestVersion,
            "the baseline's version (docs/BASELINE.md): 1 the one of ratings before version 2, 2 without "
            "late-move pruning, 3 with version 2's evaluation, 4 without version 5's reductions, 5 today's");
    v.Int64("depth", depth, 1, ab::kMaxSearchDepth, "stop after this depth (default: none)");
    v.Int64("nodes", nodes, 1, int64_t{1} << 50, "stop after this many nodes (default: none)");
    v.Double("time", time, 0.001, 1e6, "seconds per move (1 when no limit is given); a timed clock overrides it");
    v.Int64("hash", hash, 1, 1 << 16, "transposition table, MiB");
    v.Int64("threads", threads, 1, 256, "search threads (Lazy SMP over the shared table)");
    v.Bool("abdada", options.abdada,
           "with threads, a move another thread is searching is searched last (simplified ABDADA)");
    v.Bool("deepest_thread", options.deepest_thread,
           "with threads, play the move of the thread with the deepest finished iteration, not the main one's");
    v.String("weights", weights, true, "a weights file of `loaz tune-eval` (default: the shipped weights)");
    v.Bool("rps", options.realization_probability, "realization-probability search (default: the version's)");
    v.Bool("quiescence", options.quiescence, "quiescence on group-cutting captures (default: the version's)");
    v.Bool("qthreats", options.quiescence_threats,
           "quiescence: a side threatened with a union next move tries every move (default: the version's)");
    v.Bool("etc", options.enhanced_transposition_cutoffs, "enhanced transposition cutoffs (default: the version's)");
    v.Bool("multi_cut", options.multi_cut, "multi-cut pruning (default: the version's)");
    v.Bool("relative_history", options.relative_history, "relative history ordering (default: the version's)");
    v.Bool("null_move", options.null_move, "null-move pruning");
    v.Bool("adaptive_null", options.adaptive_null_move, "null move: R = 3 plies above 6 plies of depth, else 2");
    v.Bool("lmr", options.late_move_reductions, "late-move reductions where rps is off");
    v.Bool("log_lmr", options.log_reductions, "late-move reductions by log(depth) log(move number), in place of lmr's");
    v.Bool("lmp", options.late_move_pruning, "late-move pruning of quiet moves near the horizon");
    v.Int("lmp_depth", options.lmp_depth, 1, 8, "late-move pruning: the deepest depth (plies) it prunes at");
    v.Int("lmp_base", options.lmp_base, 1, 64, "late-move pruning: quiet moves kept, plus 2 d^2 at d plies");
    v.Bool("futility", options.futility, "futility pruning near the horizon (static score against the window)");
    v.Bool("aspiration", options.aspiration_windows, "aspiration windows at the root");
    v.Bool("iir", options.internal_reduction, "internal iterative reduction: a ply less where the table has no move");
    v.Bool("threat_ext", options.threat_extension, "a ply more where the opponent threatens to unite next move");
    v.Bool("history_lmr", options.history_reductions,
           "late-move reductions a ply smaller for quiet moves that cut off in half their tries");
    v.Double("iteration_start", options.iteration_start, 0.05, 1.0,
             "with a time limit, the share of it after which no new iteration starts (default: the version's)");
  }
};

class RandomPlayer : public Player {
 public:
  bool PlaysBoardSize(int) const override { return true; }
  RandomPlayer(std::string name, uint64_t seed) : name_(std::move(name)), spec_seed_(seed), rng_(seed) {}
  std::string name() const override { return name_; }
  void SetSeed(uint64_t seed) override { rng_.Seed(MixSeed(spec_seed_, seed)); }
  Move ChooseMove(const Game& game, const Clock&) override {
    MoveList moves;
    game.LegalMoves(moves);
    return moves[rng_.Below(int(moves.size()))];
  }

 private:
  std::string name_;
  uint64_t spec_seed_;
  Rng rng_;
};

class GreedyPlayer : public Player {
 public:
  bool PlaysBoardSize(int) const override { return true; }
  GreedyPlayer(std::string name, uint64_t seed) : name_(std::move(name)), spec_seed_(seed), rng_(seed) {}
  std::string name() const override { return name_; }
  void SetSeed(uint64_t seed) override { rng_.Seed(MixSeed(spec_seed_, seed)); }
  Move ChooseMove(const Game& game, const Clock&) override;

 private:
  std::string name_;
  uint64_t spec_seed_;
  Rng rng_;
};

Move GreedyPlayer::ChooseMove(const Game& game, const Clock&) {
  MoveList moves, best;
  game.LegalMoves(moves);
  const Color us = game.position().side_to_move();
  int best_value = std::numeric_limits<int>::min();
  for (Move m : moves) {
    const Position child = game.position().Apply(m);
    const Verdict verdict = UnitedVerdict(child, us, game.rules().simultaneous);
    int value;
    if (verdict.over())
      value = verdict.result == Result::kDraw ? 0 : verdict.result == WinFor(us) ? ab::kWinScore : -ab::kWinScore;
    else
      value = -ab::StaticScore(child);
    if (value > best_value) best.clear();
    if (value >= best_value) {
      best_value = value;
      best.push_back(m);
    }
  }
  return best[rng_.Below(int(best.size()))];
}

class AlphaBetaPlayer : public Player {
 public:
  bool PlaysBoardSize(int) const override { return true; }
  AlphaBetaPlayer(std::string name, const ab::SearchLimits& limits, const ab::SearchOptions& options,
                  const ab::Weights& weights)
      : name_(std::move(name)), limits_(limits), search_(options, weights.eval, weights.categories) {}
  std::string name() const override { return name_; }
  void NewGame() override { search_.Clear(); }
  Move ChooseMove(const Game& game, const Clock& clock) override {
    ab::SearchLimits limits = limits_;
    if (clock.timed()) {
      // The engine's one time manager, with the search's default shares.
      const double budget = MoveTimeBudget(clock.main_seconds, clock.byoyomi_seconds, clock.byoyomi_stones,
                                           SearchParams(), clock.increment_seconds, clock.moves_to_go);
      limits.seconds = limits.seconds > 0 ? std::min(limits.seconds, budget) : budget;
    }
    return Run(game, limits);
  }
  Move Analyse(const Game& game, double seconds, int64_t nodes) override {
    ab::SearchLimits limits;
    limits.seconds = seconds;
    limits.nodes = nodes;
    return Run(game, limits);
  }
  Move ChooseMoveWithin(const Game& game, double seconds, int64_t nodes) override {
    return Analyse(game, seconds, nodes);
  }
  void Stop() override { search_.Stop(); }
  std::string LastMoveInfo() const override;
  MoveAnalysis LastAnalysis() const override { return AnalysisOf(last_); }
  MoveAnalysis CurrentAnalysis() override {
    std::lock_guard<std::mutex> lock(progress_mutex_);
    return AnalysisOf(progress_);
  }

 private:
  static MoveAnalysis AnalysisOf(const ab::SearchResult& r) {
    MoveAnalysis a;
    a.available = r.depth > 0;
    a.seconds = r.seconds;
    a.nodes = r.nodes;
    a.depth = r.depth;
    a.score = r.score;
    a.pv = r.pv;
    return a;
  }

  // Searches, keeping each finished depth for CurrentAnalysis.
  Move Run(const Game& game, const ab::SearchLimits& limits) {
    {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      progress_ = {};
    }
    last_ = search_.Search(game, limits, [this](const ab::SearchResult& iteration) {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      progress_ = iteration;
    });
    return last_.best;
  }

  std::string name_;
  ab::SearchLimits limits_;
  ab::AlphaBeta search_;
  ab::SearchResult last_;
  std::mutex progress_mutex_;
  ab::SearchResult progress_;  // the last finished depth of the running search
};

std::string AlphaBetaPlayer::LastMoveInfo() const {
  char line[160];
  std::snprintf(line, sizeof(line), "depth %d score %+d nodes %lld time %.3f s speed %.0f nodes/s pv", last_.depth,
                last_.score, static_cast<long long>(last_.nodes), last_.seconds,
                last_.nodes / std::max(last_.seconds, 1e-9));
  std::string text = line;
  for (Move m : last_.pv) text += " " + FormatMove(m);
  return text;
}

}  // namespace

std::unique_ptr<Player> MakeRandomPlayer(const PlayerSpec& spec) {
  return std::make_unique<RandomPlayer>(spec.text(), uint64_t(ReadKeys<SeedKeys>(spec).seed));
}

std::unique_ptr<Player> MakeGreedyPlayer(const PlayerSpec& spec) {
  return std::make_unique<GreedyPlayer>(spec.text(), uint64_t(ReadKeys<SeedKeys>(spec).seed));
}

void CheckRandomSpec(const PlayerSpec& spec) { ReadKeys<SeedKeys>(spec); }

void CheckAlphaBetaSpec(const PlayerSpec& spec) { ReadAlphaBetaSpec(spec); }

AlphaBetaSetup ReadAlphaBetaSpec(const PlayerSpec& spec) {
  AlphaBetaKeys keys;
  // The version first: it sets the defaults of the technique switches.
  keys.options = ab::SearchOptions::Version(int(spec.GetInt("version", ab::kLatestVersion, 1, ab::kLatestVersion)));
  spec.ReadExactly([&](ParamVisitor& v) { keys.Visit(v); });
  AlphaBetaSetup setup;
  setup.limits.depth = int(keys.depth);
  setup.limits.nodes = keys.nodes;
  setup.limits.seconds = keys.time;
  if (setup.limits.depth == 0 && setup.limits.nodes == 0 && setup.limits.seconds == 0)
    setup.limits.seconds = kDefaultMoveSeconds;
  setup.options = keys.options;
  setup.options.hash_megabytes = int(keys.hash);
  setup.options.threads = int(keys.threads);
  if (!keys.weights.empty()) {
    try {
      setup.weights = ab::ReadWeightsFile(keys.weights);
    } catch (const Error& e) {
      throw ParseError("player '" + spec.text() + "': weights: " + e.what());
    }
  } else {
    setup.weights.eval = ab::EvalWeights::Version(int(keys.version));
  }
  return setup;
}

int AlphaBetaVersion(const std::string& text) {
  try {
    const PlayerSpec spec = PlayerSpec::Parse(text);
    return spec.kind() == "ab" ? int(spec.GetInt("version", ab::kLatestVersion, 1, ab::kLatestVersion)) : 0;
  } catch (const Error&) {
    return 0;
  }
}

std::unique_ptr<Player> MakeAlphaBetaPlayer(const PlayerSpec& spec) {
  const AlphaBetaSetup setup = ReadAlphaBetaSpec(spec);
  return std::make_unique<AlphaBetaPlayer>(spec.text(), setup.limits, setup.options, setup.weights);
}

std::vector<ParamInfo> RandomPlayerKeys() { return ListKeys<SeedKeys>(); }

std::vector<ParamInfo> AlphaBetaPlayerKeys() { return ListKeys<AlphaBetaKeys>(); }

}  // namespace loa
