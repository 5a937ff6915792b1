// loaz exam: a run's checkpoints marked against the solver's proofs
// (docs/TRAINING.md, "The 6x6 exam"): positions from its games proven under
// both options of the simultaneous rule, kept in runs/NAME/exam/, then for
// each checkpoint its value's sign, its engine's move in a proven win, and
// its engine's score from proven wins against the solver defending.

#include "app/cli.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>
#include <unordered_set>

#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"
#include "core/record.h"
#include "play/exam.h"
#include "play/mcts_player.h"
#include "play/spec.h"
#include "run/checkpoints.h"
#include "run/config.h"
#include "run/run_dir.h"
#include "train/shard.h"

namespace loa::app {
namespace {

struct ExamCommand {
  std::string run;
  int positions = 2000, spacing = 4, playouts = 64, games = 100, every = 1, symmetries = 1, threads = 1;
  std::string precision = "auto";  // the net's arithmetic (net/net_options.h)
  double solve_seconds = 0.5;
  int64_t solve_nodes = 0;  // positions each proof may search (0: none); a bound the load does not move
  int64_t memory_mb = 256;
  std::string misjudged;  // where to write the positions the last net marked misjudges
  std::string net;        // a net file to mark instead of the checkpoints
  bool value_only = false;
  int fit = 0;  // mark the value on this many of the run's proven training samples instead
};

// A net the exam marks: its row's first two columns and its file.
struct Examinee {
  std::string step, hours, path;
};

// The run's checkpoints to mark (every k-th and the last), or the one net
// file the command names.
std::vector<Examinee> Examinees(const run::RunDir& dir, const ExamCommand& c) {
  if (!c.net.empty()) {
    if (!std::filesystem::is_regular_file(c.net)) throw Error("--net " + c.net + ": no such file");
    return {{c.net, "-", c.net}};
  }
  const std::vector<int64_t> steps = dir.ListCheckpoints();
  if (steps.empty()) throw Error(c.run + ": no checkpoint to mark");
  std::vector<Examinee> marked;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i % size_t(c.every) != 0 && i + 1 != steps.size()) continue;
    char hours[32];
    std::snprintf(hours, sizeof hours, "%.2f", run::CheckpointHours(dir, steps[i]));
    marked.push_back({std::to_string(steps[i]), hours, dir.CheckpointPath(steps[i])});
  }
  return marked;
}

// The run's self-play games, each record replayed, with their names (the
// record's file name less .txt) and results (a resigned game's too); a
// record that does not read is named and skipped.
struct RunGames {
  std::vector<Game> games;
  std::vector<std::string> names;
  std::vector<Result> results;
};

RunGames ReadRunGames(const run::RunDir& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir.GamesDir(), ec))
    if (entry.is_regular_file() && entry.path().extension() == ".txt") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  RunGames games;
  for (const std::string& path : paths) {
    try {
      const Record record = ParseRecord(ReadFile(path, kMaxTextBytes), path);
      Game game = ReplayRecord(record, record.rules, path);
      const std::string resigned = TagValue(record.tags, "Resigned");
      games.results.push_back(game.over()           ? game.result()
                              : resigned == "black" ? Result::kWhiteWins
                              : resigned == "white" ? Result::kBlackWins
                                                    : Result::kOngoing);
      games.games.push_back(std::move(game));
      games.names.push_back(std::filesystem::path(path).stem().string());
    } catch (const Error& e) {
      std::fprintf(stderr, "loaz exam: skipped %s\n", e.what());
    }
  }
  return games;
}

// The bounds of each proof: --solve-seconds, --solve-nodes or both (the
// first reached ends it).
solve::SolveLimits ProofLimits(const ExamCommand& c) {
  solve::SolveLimits limits;
  limits.seconds = c.solve_seconds;
  limits.nodes = c.solve_nodes;
  return limits;
}

// The run's exam set: read from exam/positions.txt, else made from its games
// and written there.
std::vector<ExamPosition> ExamSet(const run::RunDir& dir, const Rules& rules, const ExamCommand& c) {
  if (auto text = ReadFileIfAny(dir.ExamSetPath())) return ParseExamSet(*text, dir.ExamSetPath());
  const RunGames games = ReadRunGames(dir);
  const std::vector<ExamCandidate> candidates = ExamCandidates(games.games, c.spacing, c.positions, 1);
  if (candidates.empty()) throw Error(dir.GamesDir() + ": no game records to draw exam positions from");
  const solve::SolveLimits limits = ProofLimits(c);
  // The proofs shared out among --threads threads, each one solver of one
  // thread on its own table: a proof's time is its own core's.
  std::vector<ExamPosition> set(candidates.size());
  std::atomic<size_t> next{0}, solved{0};
  auto work = [&] {
    solve::Solver solver(c.memory_mb);
    for (size_t i; (i = next.fetch_add(1)) < candidates.size();) {
      const ExamCandidate& candidate = candidates[i];
      ExamPosition& e = set[i];
      e = SolveUnderBothRules(solver, candidate.position, rules, limits);
      e.game = games.names[candidate.game];
      e.game_result = OutcomeFor(games.results[candidate.game], candidate.position.side_to_move());
      if (const size_t n = solved.fetch_add(1) + 1; n % 100 == 0)
        std::fprintf(stderr, "loaz exam: solved %zu of %zu\n", n, candidates.size());
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < c.threads; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  std::filesystem::create_directories(std::filesystem::path(dir.ExamSetPath()).parent_path());
  WriteFileAtomic(dir.ExamSetPath(), FormatExamSet(set));
  return set;
}

// The fit of a net to its labels (docs/TRAINING.md, "D2: how well the nets
// fit their own labels"): up to `count` distinct positions of the run's own proven samples
// (the shards' kProven ones: `loaz label`'s), drawn by a fixed seed, as an
// exam set of proven wins and losses without proof lengths.
std::vector<ExamPosition> FitSet(const run::RunDir& dir, int count) {
  std::vector<ExamPosition> all;
  std::unordered_set<uint64_t> seen;
  for (const run::ShardFile& file : dir.ListShards()) {
    const train::Shard shard = train::ReadShard(file.path);
    for (const train::Sample& sample : shard.samples) {
      if (!(sample.flags & train::kProven) || sample.outcome == 0 || !seen.insert(sample.position().hash()).second)
        continue;
      ExamPosition e;
      e.position = sample.position();
      e.draw_rule = e.mover_rule = sample.outcome > 0 ? solve::Outcome::kWin : solve::Outcome::kLoss;
      e.game = file.name;
      all.push_back(e);
    }
  }
  if (all.empty()) throw Error(dir.SelfplayDir() + ": no proven samples to mark the fit on (made by `loaz label`)");
  std::shuffle(all.begin(), all.end(), std::mt19937_64(1));
  all.resize(std::min(all.size(), size_t(count)));
  return all;
}

void PrintSet(const std::vector<ExamPosition>& set) {
  for (Simultaneous s : {Simultaneous::kDraw, Simultaneous::kMover}) {
    int count[4] = {0, 0, 0, 0};
    for (const ExamPosition& e : set) ++count[int(e.Under(s))];
    std::printf("simultaneous=%s: %zu positions: %d won, %d lost, %d drawn, %d unknown\n", SimultaneousName(s),
                set.size(), count[int(solve::Outcome::kWin)], count[int(solve::Outcome::kLoss)],
                count[int(solve::Outcome::kDraw)], count[int(solve::Outcome::kUnknown)]);
  }
}

// D1 (docs/TRAINING.md): the proven positions against the games they came
// from, and the net's misses among them.
void PrintSources(const std::vector<ExamPosition>& set, const ExamMarks& marks, Simultaneous rule) {
  const std::vector<SourceRow> rows = CompareWithSources(set, marks, rule);
  if (rows.back().positions == 0) {
    std::printf("\n(the set names no games: made before sources were kept; delete it to draw it again)\n");
    return;
  }
  auto share = [](int part, int whole) { return whole ? 100.0 * part / whole : 0.0; };
  std::printf(
      "\nThe proven positions against their games (the last net marked):\n"
      "| proof (plies) | proven | game ended against the proof | net's sign wrong | wrong where the game was "
      "against | wrong where it was not |\n| --- | --- | --- | --- | --- | --- |\n");
  for (const SourceRow& r : rows)
    std::printf("| %s | %d | %d (%.1f%%) | %d (%.1f%%) | %d of %d (%.1f%%) | %d of %d (%.1f%%) |\n", r.plies.c_str(),
                r.positions, r.game_against, share(r.game_against, r.positions), r.net_wrong,
                share(r.net_wrong, r.positions), r.both, r.game_against, share(r.both, r.game_against),
                r.net_wrong - r.both, r.positions - r.game_against,
                share(r.net_wrong - r.both, r.positions - r.game_against));
}

}  // namespace

int RunExam(int argc, char** argv) {
  CLI::App cli{
      "Mark a run's checkpoints against the solver's proofs (docs/TRAINING.md, the 6x6 exam). The proven "
      "positions are kept in runs/NAME/exam/positions.txt and reused.",
      argv[0]};
  ExamCommand c;
  cli.add_option("--run", c.run, "the run directory")->required();
  cli.add_option("--positions", c.positions, "positions to draw from its games")->check(CLI::Range(1, 1000000));
  cli.add_option("--spacing", c.spacing, "plies between two positions of a game")->check(CLI::Range(1, 100));
  cli.add_option("--solve-seconds", c.solve_seconds, "seconds for each proof (0.5; none with --solve-nodes alone)")
      ->check(CLI::Range(0.001, 3600.0));
  cli.add_option("--solve-nodes", c.solve_nodes,
                 "positions each proof may search: marks that neither the machine nor its load moves")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cli.add_option("--playouts", c.playouts, "the engine's playouts a move")->check(CLI::Range(1, 1000000));
  cli.add_option("--games", c.games, "games from proven wins against the solver")->check(CLI::Range(0, 100000));
  cli.add_option("--every", c.every, "mark every k-th checkpoint (and the last)")->check(CLI::Range(1, 100000));
  cli.add_option("--symmetries", c.symmetries, "average the net over this many board symmetries (value and engine)")
      ->check(CLI::Range(1, 8));
  cli.add_option("--precision", c.precision,
                 "the net's arithmetic on the cpu: auto (int8 with AVX2, as the engine plays), fp32 or int8")
      ->check(CLI::IsMember({"auto", "fp32", "int8"}));
  cli.add_option("--memory", c.memory_mb, "megabytes of the solver's table")->check(CLI::Range(1, 1 << 20));
  cli.add_option("--threads", c.threads, "threads proving a new set's positions, a solver and a table each")
      ->check(CLI::Range(1, 256));
  cli.add_option("--misjudged", c.misjudged,
                 "write the positions whose proven result the last net marked has the wrong sign of "
                 "(FEN|PROVEN|VALUE a line)");
  cli.add_option("--net", c.net, "mark this net file (a checkpoint or an export) instead of the run's checkpoints");
  cli.add_flag("--value-only", c.value_only, "mark the value's sign alone (no engine's moves, no games)");
  cli.add_option("--fit", c.fit,
                 "mark the value on this many of the run's own proven training samples (a `loaz label` run's) "
                 "instead of the exam set: how well a net fits its labels")
      ->check(CLI::Range(1, 1000000));
  LOAZ_PARSE(cli, argc, argv);
  if (c.solve_nodes > 0 && cli.count("--solve-seconds") == 0) c.solve_seconds = 0;  // the nodes alone bound it

  const run::RunDir dir(c.run);
  dir.CheckHoldsRun("--run ");
  const run::Config config = run::LoadConfig(dir.ConfigPath());
  const std::vector<Examinee> examinees = Examinees(dir, c);
  if (c.fit) c.value_only = true;  // a fit set has no proven moves to play
  const std::vector<ExamPosition> set = c.fit ? FitSet(dir, c.fit) : ExamSet(dir, config.rules, c);
  PrintSet(set);
  ExamOptions opts;
  opts.rules = config.rules;
  opts.limits = ProofLimits(c);
  opts.games = c.games;
  solve::Solver solver(c.memory_mb);
  // --value-only marks no moves and plays no games: its table has no columns for them.
  std::printf(c.value_only ? "\n| step | hours | value has the proven sign |\n| --- | --- | --- |\n"
                           : "\n| step | hours | value has the proven sign | move keeps a proven win | wins "
                             "against the solver |\n| --- | --- | --- | --- | --- |\n");
  for (const Examinee& e : examinees) {
    const PlayerSpec spec =
        PlayerSpec::Parse("mcts:net=" + e.path + ",playouts=" + std::to_string(c.playouts) +
                          ",threads=1,symmetries=" + std::to_string(c.symmetries) + ",precision=" + c.precision);
    const std::shared_ptr<Evaluator> net = MakeMctsEvaluator(spec);
    const std::unique_ptr<Player> engine = MakeMctsPlayer(spec, net);
    const ExamMarks m = TakeExam(set, *net, c.value_only ? nullptr : engine.get(), solver, opts);
    std::printf("| %s | %s | %.1f%% of %d |", e.step.c_str(), e.hours.c_str(),
                100 * m.Share(m.value_right, m.value_asked), m.value_asked);
    if (!c.value_only) {
      std::printf(" %.1f%% of %d (%d unsettled) | %.1f%% of %d (%d drawn) |",
                  100 * m.Share(m.moves_kept, m.moves_asked), m.moves_asked, m.moves_unknown,
                  100 * m.Share(m.games_won, m.games), m.games, m.games_drawn);
    }
    std::printf("\n");
    std::fflush(stdout);
    if (&e == &examinees.back()) PrintSources(set, m, opts.rules.simultaneous);
    if (!c.misjudged.empty() && &e == &examinees.back()) {
      std::string text;
      for (const std::string& line : m.misjudged) text += line + "\n";
      WriteFileAtomic(c.misjudged, text);
    }
  }
  return 0;
}

}  // namespace loa::app
