#include "app/bench_scaling.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/bench_util.h"
#include "core/game.h"
#include "core/param_visitor.h"
#include "mcts/search.h"
#include "mcts/selfplay_driver.h"
#include "mcts/uniform_evaluator.h"
#include "net/cpu_evaluator.h"
#include "net/torch_evaluator.h"
#include "play/mcts_player.h"

namespace loa::app {
namespace {

// `bench scaling`: how each part of the system grows with threads, with
// each step's rate against a linear one (efficiency = rate / (threads x the
// one-thread rate)). The engine search: playouts a second of one search at
// 1, 2, 4, ... threads (uniform evaluator, then the net in int8; the
// median of a few rounds of one kept search a count, below);
// self-play: positions an hour of 1, 2, 4, ... workers, each a
// batched driver of `games` games on its own thread, all sharing one int8
// evaluator as a run's workers do; the trainer: samples a second of the
// fp32 step at 1, 2, 4, ... LibTorch intra-op threads.
class ScalingTable {
 public:
  // The first row is the base that the others are compared to.
  void Row(const char* what, int threads, double rate, const char* unit) {
    if (base_threads_ == 0) {
      base_ = rate;
      base_threads_ = threads;
    }
    const double speedup = base_ > 0 ? rate / base_ : 0;
    std::printf("%-30s %7d %14.0f %-12s %7.2fx %9.0f%%\n", what, threads, rate, unit, speedup,
                100 * speedup * base_threads_ / threads);
    std::fflush(stdout);
  }

 private:
  double base_ = 0;
  int base_threads_ = 0;
};

// Returns 1, 2, 4, ... up to max, and max itself.
std::vector<int> Doublings(int max) {
  std::vector<int> counts;
  for (int t = 1; t < max; t *= 2) counts.push_back(t);
  counts.push_back(max);
  return counts;
}

// Returns the median of rates (not empty).
double Median(std::vector<double> rates) {
  std::sort(rates.begin(), rates.end());
  const size_t n = rates.size();
  return n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
}

// The engine search's playouts a second, round by round: each setting at
// each count ([setting][count][round]), and as many one-thread searches of
// the first setting as each count, side by side ([count][round]: their
// sum; what the machine gives that many threads that share nothing).
struct SearchFigures {
  std::vector<std::vector<std::vector<double>>> shared;
  std::vector<std::vector<double>> independent;
};

// Returns the summed playouts a second of `searches` (one thread each)
// searching the start at once.
double IndependentRate(const std::vector<std::unique_ptr<Search>>& searches, const SearchLimits& limits) {
  std::vector<int64_t> playouts(searches.size());
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (size_t k = 0; k < searches.size(); ++k)
    threads.emplace_back([&, k] { playouts[k] = searches[k]->Run(Game(), limits).playouts; });
  for (std::thread& t : threads) t.join();
  const double seconds = SecondsSince(start);
  int64_t total = 0;
  for (int64_t p : playouts) total += p;
  return double(total) / seconds;
}

// Returns the SearchFigures of `settings` at `counts` threads: searches
// from the start, `seconds` long, `rounds` rounds over all of them in turn,
// after one round that is not counted. Each setting and count keeps its
// searches over the rounds, as the engine does over a game's moves, so that
// a figure is the search's own rate and not the first touch of its tree's
// memory (which on a virtual machine costs a fresh search up to half its
// rate), and all take their turns at whatever else the machine is doing.
SearchFigures SearchRates(Evaluator& evaluator, const std::vector<int>& counts, double seconds, int rounds,
                          std::vector<SearchParams> settings) {
  std::vector<std::vector<std::unique_ptr<Search>>> searches(settings.size()), apart(counts.size());
  for (SearchParams& params : settings) params.reuse_tree = false;
  for (size_t s = 0; s < settings.size(); ++s)
    for (int t : counts) {
      settings[s].threads = t;
      searches[s].push_back(std::make_unique<Search>(&evaluator, settings[s]));
    }
  settings[0].threads = 1;
  for (size_t i = 0; i < counts.size(); ++i)
    for (int k = 0; k < counts[i] && counts[i] > 1; ++k)
      apart[i].push_back(std::make_unique<Search>(&evaluator, settings[0]));
  SearchLimits limits;
  limits.seconds = seconds;
  limits.early_stop = false;
  SearchFigures figures;
  figures.shared.assign(settings.size(), std::vector<std::vector<double>>(counts.size()));
  figures.independent.resize(counts.size());
  for (int round = 0; round <= rounds; ++round)
    for (size_t i = 0; i < counts.size(); ++i) {
      for (size_t s = 0; s < settings.size(); ++s) {
        const Clock::time_point start = Clock::now();
        const SearchResult result = searches[s][i]->Run(Game(), limits);
        if (round > 0) figures.shared[s][i].push_back(double(result.playouts) / SecondsSince(start));
      }
      if (!apart[i].empty()) {
        const double rate = IndependentRate(apart[i], limits);
        if (round > 0) figures.independent[i].push_back(rate);
      }
    }
  return figures;
}

// Returns the median of a[r] / b[r] over the rounds r.
double MedianRatio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> ratios;
  for (size_t r = 0; r < a.size(); ++r) ratios.push_back(a[r] / b[r]);
  return Median(ratios);
}

// Prints the rows of one evaluator's search figures: each setting's median
// rates, the independent searches', then the ratios of rates measured
// within seconds of each other, round by round (their medians): the
// shared search against the independent ones (what the shared tree
// costs), and a second setting against the first.
void SearchRows(const char* what, Evaluator& evaluator, const ScalingOptions& so) {
  std::vector<SearchParams> settings = {so.search_params};
  if (so.versus_params) settings.push_back(*so.versus_params);
  const SearchFigures figures = SearchRates(evaluator, so.counts, so.seconds, so.rounds, settings);
  const std::string name = what;
  for (size_t s = 0; s < settings.size(); ++s) {
    ScalingTable table;
    for (size_t i = 0; i < so.counts.size(); ++i)
      table.Row((s == 0 ? name : name + ", versus").c_str(), so.counts[i], Median(figures.shared[s][i]), "playouts/s");
    if (s > 0) continue;
    for (size_t i = 0; i < so.counts.size(); ++i)
      if (!figures.independent[i].empty())
        table.Row((name + ", independent").c_str(), so.counts[i], Median(figures.independent[i]), "playouts/s");
  }
  const auto ratio_row = [&](const std::string& label, int count, double ratio, const char* meaning) {
    std::printf("%-30s %7d %14.3f %-12s (%s, round by round: median of %d)\n", label.c_str(), count, ratio, "x",
                meaning, so.rounds);
  };
  for (size_t i = 0; i < so.counts.size(); ++i)
    if (!figures.independent[i].empty())
      ratio_row(name + ", shared tree", so.counts[i], MedianRatio(figures.shared[0][i], figures.independent[i]),
                "one search / independent ones");
  if (settings.size() < 2) return;
  for (size_t i = 0; i < so.counts.size(); ++i)
    ratio_row(name + ", versus", so.counts[i], MedianRatio(figures.shared[1][i], figures.shared[0][i]),
              "versus / first");
}

// Returns positions (moves played) an hour of `workers` self-play drivers on
// their own threads, sharing evaluator, over `seconds` after a warm-up step.
double SelfPlayPositionsPerHour(Evaluator& evaluator, int workers, int games, int playouts, double seconds) {
  SearchParams params;
  params.playouts = playouts;
  std::vector<std::unique_ptr<SelfPlayDriver>> drivers;
  for (int w = 0; w < workers; ++w) {
    SelfPlayGames plays;
    plays.parallel = games;
    plays.seed = uint64_t(w + 1);
    drivers.push_back(std::make_unique<SelfPlayDriver>(&evaluator, params, Rules(), plays));
  }
  std::atomic<int64_t> moves{0};
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (auto& driver : drivers)
    threads.emplace_back([&, d = driver.get()] {
      std::vector<SelfPlayGame> finished;
      d->Step(&finished);  // warm-up: every game's first leaves
      const int64_t first = d->moves_played();
      while (SecondsSince(start) < seconds) {
        d->Step(&finished);
        finished.clear();
      }
      moves += d->moves_played() - first;
    });
  for (std::thread& t : threads) t.join();
  return double(moves.load()) / SecondsSince(start) * 3600;
}

// Sets params' keys from `option`'s KEY=VALUE settings; throws UsageError
// naming the option and the setting.
void ApplySearchSettings(const std::vector<std::string>& list, const char* option, SearchParams* params) {
  std::map<std::string, std::string> settings;
  try {
    settings = KeyValueMap(list, option);
  } catch (const ParseError& e) {
    throw UsageError(e.what());
  }
  MapParamReader reader(settings, option);
  params->Visit(reader);
  if (!reader.UnknownKeys().empty())
    throw UsageError(std::string(option) + ": unknown key '" + reader.UnknownKeys().front() + "'");
}

}  // namespace

int BenchScaling(const ExportedNet& net, const std::string& net_name, ScalingOptions so) {
  if (so.counts.empty())
    so.counts = Doublings(so.max_threads > 0 ? so.max_threads : int(std::max(1u, std::thread::hardware_concurrency())));
  const int max_threads = *std::max_element(so.counts.begin(), so.counts.end());
  const int games = so.games, playouts = so.playouts;
  const double seconds = so.seconds;
  const bool cuda = so.selfplay_device == "cuda";
  std::printf(
      "bench scaling: up to %d threads on %d cpus; net %s %s, int8; %.1f s a figure, wall-clock; load average %.2f\n"
      "self-play: %d games a worker, %d playouts a move, the net %s; efficiency: the rate / (threads x the rate "
      "of one)\n\n",
      max_threads, std::thread::hardware_concurrency(), net.config.ShortName().c_str(), net_name.c_str(), seconds,
      LoadAverage(), games, playouts,
      cuda ? ("on cuda, " + so.precision + ", " + std::to_string(so.in_flight) + " batches in flight").c_str()
           : "in int8 on the cpu");
  std::printf(
      "the engine's search: %d leaves a call%s; each figure the median of %d rounds over the counts in turn, "
      "after one more, with one search a count kept over its rounds\n\n",
      so.search_params.leaves_per_batch,
      so.search_params.leaves_per_batch == kEngineLeavesPerBatch ? " (the engine's default)" : "", so.rounds);
  if (so.versus_params) std::printf("versus: the same search with %s, turn about\n\n", so.versus_name.c_str());
  std::printf("%-30s %7s %14s %-12s %8s %10s\n", "figure", "threads", "rate", "unit", "vs one", "efficiency");
  UniformEvaluator uniform;
  ScalingTable selfplay, trainer;
  std::unique_ptr<CpuEvaluator> int8;  // built once, when a figure needs it (calibration takes a while)
  auto engine = [&]() -> CpuEvaluator& {
    if (!int8) int8 = std::make_unique<CpuEvaluator>(net, 1, Precision::kInt8);
    return *int8;
  };
  if (so.search) {
    SearchRows("search, uniform", uniform, so);
    SearchRows("search, net", engine(), so);
  }
  for (int w : so.counts) {
    if (!cuda) {
      selfplay.Row("self-play workers", w, SelfPlayPositionsPerHour(engine(), w, games, playouts, seconds),
                   "positions/h");
      continue;
    }
    NetEvaluatorOptions options;
    options.device = "cuda";
    options.precision = so.precision;
    options.max_batch = w * games;
    options.batches_in_flight = so.in_flight;
    options.cuda_graphs = so.cuda_graphs;
    TorchEvaluator gpu(net, options);
    const double rate = SelfPlayPositionsPerHour(gpu, w, games, playouts, seconds);
    long passes = 0, positions = 0;
    gpu.Counters(&passes, &positions);
    selfplay.Row("self-play workers, cuda", w, rate, "positions/h");
    std::printf("%-30s %7s mean batch %.0f in %ld forward passes; cuda graphs of %d shapes\n", "", "",
                passes ? double(positions) / passes : 0.0, passes, gpu.graph_shapes());
  }
  if (!so.train) return 0;
  const train::Batch batch = RandomBatch(256, net.config.features());
  for (int t : so.counts) {
    torch::set_num_threads(t);
    double loss = 0;
    trainer.Row("trainer, fp32, batch 256", t, TrainSamplesPerSecond(net.config, batch, seconds, false, &loss),
                "samples/s");
  }
  return 0;
}

// Adds `bench scaling` to cli, parsing into *c.
void AddScalingCommand(CLI::App& cli, NetChoice& net_choice, ScalingCommand* c) {
  CLI::App* scaling = c->app = cli.add_subcommand(
      "scaling", "rates at 1, 2, 4, ... threads against linear: engine search, self-play workers, trainer");
  AddNetOptions(scaling, net_choice);
  ScalingOptions& so = c->so;
  scaling->add_option("--playouts", so.playouts, "playouts of a self-play move (configs/default.yaml's)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  auto* max_option = scaling->add_option("--max-threads", c->max_threads, "1, 2, 4, ... up to this (default: the cpus)")
                         ->check(CLI::Range(1, 256));
  scaling->add_option("--counts", so.counts, "the thread and worker counts to measure, e.g. 1 2 4 8 14 16")
      ->check(CLI::Range(1, 256))
      ->excludes(max_option);
  scaling->add_option("--seconds", so.seconds, "time per figure")->capture_default_str()->check(CLI::Range(0.1, 600.0));
  scaling->add_option("--rounds", so.rounds, "the engine search's figures: the median of this many rounds")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  scaling->add_option("--games", so.games, "games of each self-play worker")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  scaling->add_flag("--no-train", c->skip_train, "leave out the trainer's figures");
  scaling->add_flag("--no-search", c->skip_search, "leave out the engine search's figures");
  scaling->add_option("--selfplay-device", so.selfplay_device, "the self-play workers' net: int8 on the cpu, or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  scaling->add_option("--precision", so.precision, "the net's precision on cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  scaling->add_option("--in-flight", so.in_flight, "forward passes in flight at once on cuda")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  scaling
      ->add_option("--cuda-graphs", so.cuda_graphs, "cuda: replay each batch shape's captured pass (on) or not (off)")
      ->capture_default_str()
      ->transform(CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}));
  scaling->add_option("--search", c->search_settings,
                      "the engine search's settings, KEY=VALUE ... (the search's keys of an mcts: spec, those of the "
                      "config's mcts section, e.g. leaves_per_batch=4; not the net's keys such as net=)");
  scaling->add_option("--versus", c->versus_settings,
                      "a second setting of the engine search, KEY=VALUE ... over --search's, measured in the same "
                      "rounds, turn about with the first");
}

// Runs `bench scaling` as c asks.
int RunScaling(NetChoice& net_choice, ScalingCommand* c) {
  ScalingOptions& so = c->so;
  so.max_threads = c->max_threads;
  so.train = !c->skip_train;
  so.search = !c->skip_search;
  // The engine's search as `loaz gtp` runs it (its play-time levers, four
  // leaves a call), with --search's settings over them, and --versus's
  // over those.
  so.search_params = EngineSearchParams();
  ApplySearchSettings(c->search_settings, "--search", &so.search_params);
  if (!c->versus_settings.empty()) {
    so.versus_params = so.search_params;
    ApplySearchSettings(c->versus_settings, "--versus", &*so.versus_params);
    for (const std::string& setting : c->versus_settings)
      so.versus_name += (so.versus_name.empty() ? "" : " ") + setting;
  }
  return BenchScaling(net_choice.Load(), net_choice.file.empty() ? "(fresh)" : net_choice.file, so);
}

}  // namespace loa::app
