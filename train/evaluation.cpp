#include "train/evaluation.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/random.h"
#include "net/checkpoint.h"
#include "net/net_evaluator.h"
#include "play/match.h"
#include "play/mcts_player.h"
#include "train/stop.h"

namespace loa::train {
namespace {

// NN cache entries of an evaluation player: plenty for one game's searches
// (a few thousand positions a move), a fraction of the engine's default.
constexpr int kEvalCacheEntries = 1 << 16;

// A ladder player: named and made by its spec.
EvalSide LadderSide(const std::string& spec) { return {spec, spec, nullptr}; }

// Thrown from a match's progress callback to end it on a stop request.
struct MatchStopped {};

// Returns name with every character but letters, digits, '-' and '.' made '_'.
std::string FileSafe(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(uint8_t(c)) && c != '-' && c != '.') c = '_';
  return out;
}

// Returns the games a and b have played each other in records.
int GamesPlayed(const std::vector<MatchRecord>& records, const std::string& a, const std::string& b) {
  int games = 0;
  for (const MatchRecord& r : records)
    if ((r.a == a && r.b == b) || (r.a == b && r.b == a)) games += r.wins + r.draws + r.losses;
  return games;
}

}  // namespace

EvalSide CheckpointSide(const std::string& name, const std::string& path, const run::Config& config) {
  SearchParams params = EngineSearchParams(config.mcts);
  SearchLimits limits;
  std::string limit;
  if (config.eval.time > 0) {
    limits.seconds = config.eval.time;
    limit = "time=" + FormatDouble(config.eval.time);
  } else {
    limits.playouts = config.eval.playouts;
    limit = "playouts=" + std::to_string(config.eval.playouts);
  }
  NetEvaluatorOptions options;
  options.device = config.run.device;
  options.cache_entries = kEvalCacheEntries;
  options.max_batch = std::max(options.max_batch, params.threads * params.leaves_per_batch);
  const std::shared_ptr<Evaluator> evaluator = MakeNetEvaluator(path, options);
  // What the record says played: the net, the limit and the device (the
  // search is the run's mcts section).
  std::string spec = "mcts:net=" + path + "," + limit + ",device=" + config.run.device;
  return {name, spec, [spec, evaluator, params, limits] { return MakeSearchPlayer(spec, evaluator, params, limits); }};
}

std::vector<MatchRecord> ReadMatchRecords(const run::RunDir& run, std::string* damage) {
  std::vector<MatchRecord> records;
  std::vector<nlohmann::json> lines;
  int skipped = 0;
  try {
    lines = run::ReadJsonLines(run.MatchesPath(), &skipped);
  } catch (const IoError& e) {
    if (damage) *damage = std::string(e.what()) + " (no match is read from it)";
    return records;
  }
  for (const nlohmann::json& j : lines) {
    auto count = [&](const char* key) {
      const auto it = j.find(key);
      return it != j.end() && it->is_number_integer() ? it->get<int>() : -1;
    };
    const auto a = j.find("a"), b = j.find("b");
    MatchRecord r{a != j.end() && a->is_string() ? a->get<std::string>() : "",
                  b != j.end() && b->is_string() ? b->get<std::string>() : "", count("wins"), count("draws"),
                  count("losses")};
    if (r.a.empty() || r.b.empty() || r.wins < 0 || r.draws < 0 || r.losses < 0) {
      ++skipped;
      continue;
    }
    const auto hours = j.find("hours");
    if (hours != j.end() && hours->is_number() && run::CheckpointStep(r.a)) r.hours = hours->get<double>();
    records.push_back(r);
  }
  if (damage && skipped > 0)
    *damage = run.MatchesPath() + ": " + std::to_string(skipped) + (skipped == 1 ? " line is" : " lines are") +
              " not a match record (skipped: a match it held is played again)";
  return records;
}

std::vector<std::string> MatchLinesUpTo(const run::RunDir& run, int64_t step) {
  std::vector<std::string> kept;
  if (!std::filesystem::exists(run.MatchesPath())) return kept;
  std::istringstream lines(ReadFile(run.MatchesPath()));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_object() && record.value("step", int64_t{0}) <= step) kept.push_back(line);
  }
  return kept;
}

std::vector<Rating> RateAll(const std::vector<MatchRecord>& records, const std::string& anchor) {
  std::vector<std::string> names;
  std::map<std::string, int> index;
  auto id = [&](const std::string& name) {
    auto [it, fresh] = index.emplace(name, int(names.size()));
    if (fresh) names.push_back(name);
    return it->second;
  };
  std::map<std::pair<int, int>, PairResults> pairs;
  for (const MatchRecord& r : records) {
    int i = id(r.a), j = id(r.b);
    int wins = r.wins, losses = r.losses;
    if (i > j) std::swap(i, j), std::swap(wins, losses);
    PairResults& p = pairs[{i, j}];
    p.i = i, p.j = j;
    p.wins += wins, p.draws += r.draws, p.losses += losses;
  }
  if (names.empty()) return {};
  std::vector<PairResults> results;
  for (const auto& [key, p] : pairs) results.push_back(p);
  const int anchor_index = index.count(anchor) ? index[anchor] : 0;
  std::vector<Rating> ratings = BradleyTerry(names, results, anchor_index, 0);
  std::sort(ratings.begin(), ratings.end(), [](const Rating& x, const Rating& y) { return x.elo > y.elo; });
  return ratings;
}

double EvalPauseSeconds(double seconds, int threads, int cores, double max_share) {
  cores = std::max(1, cores);
  const double used = double(std::clamp(threads, 1, cores)) / cores;
  return std::max(0.0, seconds * (used / max_share - 1));
}

std::string CheckpointRater::Anchor() const {
  return run_.config.eval.opponents.empty() ? "" : run_.config.eval.opponents[0];
}

CheckpointRater::CheckpointRater(run::RunContext& run) : run_(run) {
  // What the evaluation writes must be files: anything else in their place
  // (a folder, a device) is set aside, and the evaluation goes on.
  for (const std::string& path : {run_.dir.MatchesPath(), run_.dir.RatingsPath(), run_.dir.RatingsTablePath()}) {
    std::error_code error;
    const auto status = std::filesystem::symlink_status(path, error);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
      run_.log.Warn(path + ": not a file: set aside as " + SetAsideDamaged(path));
  }
  std::string damage;
  ReadMatchRecords(run_.dir, &damage);
  if (!damage.empty()) run_.log.Warn(damage);
}

bool CheckpointRater::PlayAndRecord(const EvalSide& a, const EvalSide& b, int games, int64_t step, double hours,
                                    std::vector<MatchRecord>* records) {
  const std::string &a_name = a.name, &b_name = b.name;
  // A pair that has played before plays only the games it lacks, with
  // openings and a records folder of their own.
  const int played = GamesPlayed(*records, a_name, b_name);
  if (played >= games) return true;
  const run::EvalConfig& ec = run_.config.eval;
  MatchConfig mc;
  mc.player_a = a.spec;
  mc.player_b = b.spec;
  mc.make_a = a.make;
  mc.make_b = b.make;
  mc.games = games - played;
  mc.openings = ec.random_plies > 0 ? "random:plies=" + std::to_string(ec.random_plies) : "none";
  mc.threads = ec.threads;
  mc.seed = Mix(uint64_t(run_.config.run.seed) ^ Mix(Fnv1a64(a_name) ^ Mix(Fnv1a64(b_name))) ^ uint64_t(played));
  mc.rules = run_.config.rules;
  mc.rules.max_plies = ec.max_plies;
  mc.forfeit_on_timeout = false;  // a silent engine is an error of the evaluation, not a result
  mc.out_dir = run_.dir.EvalMatchDir(FileSafe(a_name + "_vs_" + b_name) +
                                     (played > 0 ? "_from_" + std::to_string(played + 1) : ""));
  mc.on_progress = [&](const MatchProgress& p) {
    if (StopRequested()) throw MatchStopped();
    run_.log.Progress("eval " + a_name + " vs " + b_name + ": " + FormatProgress(p));
  };
  MatchResult result;
  try {
    result = RunMatch(mc);
  } catch (const MatchStopped&) {
    return false;
  }
  // The counts and rating as the match writes them (MatchResult::ToJson),
  // under the run's names for the two sides.
  const nlohmann::ordered_json outcome = result.ToJson();
  nlohmann::json record = {{"a", a_name},    {"b", b_name},      {"step", step},
                           {"hours", hours}, {"a_spec", a.spec}, {"b_spec", b.spec}};
  nlohmann::json event = {
      {"event", "eval"}, {"step", step}, {"hours", hours}, {"player", a_name}, {"opponent", b_name}};
  for (const char* key : {"games", "wins", "draws", "losses"}) record[key] = outcome[key];
  for (const char* key : {"wins", "draws", "losses", "score", "elo", "elo_ci95"}) event[key] = outcome[key];
  run::JsonLinesLog(run_.dir.MatchesPath()).Write(record);
  records->push_back({a_name, b_name, result.wins, result.draws, result.losses, step >= 0 ? hours : -1.0});
  run_.metrics.Write(event);
  run_.log.Info("eval: " + a_name + " vs " + b_name + ": +" + std::to_string(result.wins) + " =" +
                std::to_string(result.draws) + " -" + std::to_string(result.losses) + " (Elo " +
                std::to_string(int(result.elo.elo)) + " +- " + std::to_string(int(result.elo.ci95)) + ")");
  return true;
}

void CheckpointRater::EnsureLadder(int games, double hours, std::vector<MatchRecord>* records) {
  const std::vector<std::string>& ladder = run_.config.eval.opponents;
  for (size_t i = 0; i < ladder.size(); ++i)
    for (size_t j = i + 1; j < ladder.size(); ++j)
      if (GamesPlayed(*records, ladder[i], ladder[j]) == 0 && !StopRequested())
        PlayAndRecord(LadderSide(ladder[i]), LadderSide(ladder[j]), games, -1, hours, records);
}

bool CheckpointRater::Rate(int64_t step, double hours, int games) {
  if (games <= 0) games = run_.config.eval.games;
  const std::string name = run::CheckpointName(step);
  ReadCheckpointInfo(run_.dir.CheckpointPath(step));  // a damaged checkpoint fails here, before any game
  const EvalSide side = CheckpointSide(name, run_.dir.CheckpointPath(step), run_.config);
  // The file is read once; each match played is added to what was read.
  std::vector<MatchRecord> records = ReadMatchRecords(run_.dir);
  const size_t matches_before = records.size();
  EnsureLadder(games, hours, &records);
  std::optional<int64_t> best;
  if (run_.config.eval.previous_best) {
    for (const Rating& r : RateAll(records, Anchor())) {
      const std::optional<int64_t> other = run::CheckpointStep(r.name);
      if (!other || *other >= step || !std::filesystem::exists(run_.dir.CheckpointPath(*other))) continue;
      try {
        ReadCheckpointInfo(run_.dir.CheckpointPath(*other));
      } catch (const Error&) {
        continue;  // damaged since it was rated: the next best
      }
      best = other;
      break;
    }
  }
  for (const std::string& opponent : run_.config.eval.opponents)
    if (!PlayAndRecord(side, LadderSide(opponent), games, step, hours, &records)) return false;
  if (best &&
      !PlayAndRecord(side, CheckpointSide(run::CheckpointName(*best), run_.dir.CheckpointPath(*best), run_.config),
                     games, step, hours, &records))
    return false;
  if (records.size() == matches_before) return true;  // nothing lacked: nothing new to rate
  WriteRatings(records);
  for (const Rating& r : RateAll(records, Anchor()))
    if (r.name == name)
      run_.metrics.Write({{"event", "rating"},
                          {"step", step},
                          {"hours", hours},
                          {"elo", r.elo},
                          {"elo_ci95", r.ci95},
                          {"anchor", Anchor()}});
  return true;
}

std::string CheckpointRater::WriteRatings(const std::vector<MatchRecord>& records) {
  const std::string anchor = Anchor();
  std::vector<Rating> ratings = RateAll(records, anchor);
  std::map<std::string, double> hours;  // of the checkpoints
  for (const MatchRecord& r : records)
    if (r.hours >= 0) hours[r.a] = r.hours;
  char line[200];
  std::snprintf(line, sizeof line, "%-20s %8s %8s %6s %7s %7s\n", "player", "elo", "+-95%", "games", "score", "hours");
  std::string table = line;
  for (Rating& r : ratings) {
    const auto h = hours.find(r.name);
    if (h != hours.end()) r.hours = h->second;
    char run_time[16] = "";
    if (r.hours >= 0) std::snprintf(run_time, sizeof run_time, "%.2f", r.hours);
    std::snprintf(line, sizeof line, "%-20s %8.0f %8.0f %6d %6.1f%% %7s\n", r.name.c_str(), r.elo, r.ci95, r.games,
                  100 * r.score, run_time);
    table += line;
  }
  table += "(Bradley-Terry over every match in eval/matches.jsonl; " +
           (anchor.empty() ? std::string("the first player") : anchor) + " fixed at Elo 0)\n";
  WriteFileAtomic(run_.dir.RatingsTablePath(), table);
  WriteFileAtomic(run_.dir.RatingsPath(), RatingsJson(ratings).dump(2) + "\n");
  return table;
}

}  // namespace loa::train
