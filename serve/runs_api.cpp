// The runs the server shows: their metrics in pieces, their games.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "core/error.h"
#include "core/file_util.h"
#include "core/notation.h"
#include "core/record.h"
#include "net/torch_backend.h"
#include "play/ratings.h"
#include "play/spec.h"
#include "run/checkpoints.h"
#include "run/metrics.h"
#include "run/run_dir.h"
#include "run/run_state.h"
#include "run/workers.h"
#include "serve/memory.h"
#include "serve/server_impl.h"

namespace loa::serve {

namespace fs = std::filesystem;

class ServerImpl::MetricsReadSlot {
 public:
  explicit MetricsReadSlot(ServerImpl& server) : server_(server) {
    std::unique_lock<std::mutex> lock(server_.metrics_mutex);
    server_.metrics_freed.wait(lock, [&] { return server_.metrics_reads < kMaxMetricsReads; });
    ++server_.metrics_reads;
  }
  ~MetricsReadSlot() {
    {
      std::lock_guard<std::mutex> lock(server_.metrics_mutex);
      --server_.metrics_reads;
    }
    server_.metrics_freed.notify_one();
    ReturnFreeMemory();
  }

 private:
  ServerImpl& server_;
};

namespace {

// Returns a line about a run's file with the run's folder written as its
// public name: a reply never shows the server's folders.
std::string UnderPublicName(const RunView& run, const std::string& line) {
  return line.rfind(run.dir, 0) == 0 ? run.name + line.substr(run.dir.size()) : line;
}

}  // namespace

const RunView& ServerImpl::RunAt(const std::string& index) const {
  const size_t i = std::stoul(index);  // the route's pattern allows digits only
  if (i >= runs.size())
    throw BadRequest{"no run " + index + " (this server shows " + std::to_string(runs.size()) + ")"};
  return runs[i];
}

json ServerImpl::RunGames(const RunView& run) const {
  static const std::regex record_pattern("[A-Za-z0-9_.-]+\\.txt");
  json games = json::array();
  const run::RunDir dir(run.dir);
  // A game's name is its path inside the run's folder.
  const auto relative = [&](const std::string& path) { return fs::path(path).lexically_relative(dir.root()).string(); };
  // A link out of the run is not listed (nor served: RunGame).
  for (const std::string& name : NewestFiles(dir.GamesDir(), record_pattern, kGamesListed))
    if (InsideRun(run, dir.GameRecordPath(name)))
      games.push_back({{"kind", "selfplay"}, {"name", relative(dir.GameRecordPath(name))}});
  std::error_code error;
  for (fs::directory_iterator it(dir.EvalGamesDir(), error), end; !error && it != end; it.increment(error)) {
    const std::string folder = it->path().filename().string();
    if (!it->is_directory() || !std::regex_match(folder, std::regex("[A-Za-z0-9_.=:,-]+"))) continue;
    for (const std::string& name : NewestFiles(it->path().string(), record_pattern, 4))
      if (InsideRun(run, dir.EvalMatchDir(folder) + "/" + name))
        games.push_back({{"kind", "eval"}, {"name", relative(dir.EvalMatchDir(folder) + "/" + name)}});
  }
  return games;
}

json ServerImpl::RunGame(const RunView& run, const std::string& name) const {
  // Only a record the listing offers: the name never becomes a path by itself.
  bool listed = false;
  for (const json& game : RunGames(run)) listed = listed || game["name"] == name;
  if (!listed) throw BadRequest{"run " + run.name + " lists no game '" + Excerpt(name, 80) + "'"};
  const std::string path = run.dir + "/" + name;
  CheckInsideRun(run, path, name);
  Record record;
  Game game;
  try {
    record = ParseRecord(ReadFile(path, kMaxTextBytes), name);
    game = ReplayRecord(record, record.rules, name);
  } catch (const Error& e) {
    throw BadRequest{e.what()};
  }
  json tags = json::object();
  for (const auto& [key, value] : record.tags) tags[key] = value;
  json moves = json::array(), fens = json::array();
  Game replay(game.rules(), game.start());
  fens.push_back(replay.start().ToString());
  for (Move m : game.moves()) {
    moves.push_back(FormatMove(m));
    replay.Play(m);
    fens.push_back(replay.position().ToString());
  }
  return {{"name", name},
          {"tags", tags},
          {"moves", moves},
          {"fens", fens},
          {"result", ResultName(game.result())},
          {"reason", ReasonName(game.reason())}};
}

json ServerImpl::RunMetrics(const RunView& run, const std::string& since, const std::string& file) {
  if (since.size() > 18 || since.find_first_not_of("0123456789") != std::string::npos)
    throw BadRequest{"'since' must be a byte offset (the 'next' of the last reply)"};
  if (file.size() > 48 || file.find_first_not_of("0123456789:") != std::string::npos)
    throw BadRequest{"'file' must be the 'file' of the last reply"};
  run::JsonLinesPiece piece;
  {
    MetricsReadSlot slot(*this);
    CheckInsideRun(run, run::RunDir(run.dir).MetricsPath(), "metrics.jsonl");
    try {
      piece = run::ReadJsonLinesPiece(run::RunDir(run.dir).MetricsPath(), since.empty() ? 0 : std::stoull(since), file,
                                      run::kJsonLinesChunkBytes);
    } catch (const IoError& e) {
      std::fprintf(stderr, "loaz serve: run '%s': %s\n", run.name.c_str(), e.what());
      throw BadRequest{"run '" + run.name + "': its metrics.jsonl cannot be read (the server's log says why)", 500};
    }
  }
  json events = json::array();
  for (json& event : piece.objects) events.push_back(std::move(event));
  return json{{"run", run.name},    {"events", events},     {"next", piece.next}, {"size", piece.size},
              {"more", piece.more}, {"reset", piece.reset}, {"file", piece.file}};
}

json ServerImpl::RunMetricsOf(const httplib::Request& request) {
  // From ?since= (the "next" of the last reply) on: a page appends what is
  // new instead of reading the run again.
  return RunMetrics(RunAt(request.matches[1]), request.get_param_value("since"), request.get_param_value("file"));
}

json ServerImpl::RunRatings(const httplib::Request& request) {
  const RunView& run = RunAt(request.matches[1]);
  const std::string path = run::RunDir(run.dir).RatingsPath();
  CheckInsideRun(run, path, "eval/ratings.json");
  std::string damage;
  const std::optional<std::string> text = ReadFileUnlessDamaged(path, &damage);
  std::optional<std::vector<Rating>> ratings = text ? ParseRatingsJson(*text) : std::vector<Rating>();
  if (!ratings) {
    damage = path + ": not a list of ratings";
    ratings.emplace();
  }
  json reply{{"run", run.name}, {"ratings", RatingsJson(*ratings)}};
  // The ratings come again from eval/matches.jsonl.
  if (!damage.empty())
    reply["damage"] = UnderPublicName(run, damage) + " (`loaz eval --run DIR --table-only` writes them again)";
  return reply;
}

json ServerImpl::RunCheckpoints(const httplib::Request& request) {
  const RunView& run = RunAt(request.matches[1]);
  const run::RunDir dir(run.dir);
  // A checkpoint plays only where LibTorch is (loaz-torch serve); the run's
  // export, when the server offers it, plays anywhere.
  const bool playable = GetTorchBackend() != nullptr;
  json list = json::array();
  for (int64_t step : dir.ListCheckpoints())
    list.push_back({{"step", step}, {"player", run::RunCheckpointName({run.name, step})}});
  json export_player = nullptr;
  for (const NamedPlayer& player : players)
    if (player.spec.GetString("net", "") == dir.ExportPath()) export_player = player.name;
  return json{{"run", run.name}, {"checkpoints", list}, {"playable", playable}, {"export_player", export_player}};
}

json ServerImpl::RunWorkers(const httplib::Request& request) {
  const RunView& run = RunAt(request.matches[1]);
  const run::RunDir dir(run.dir);
  const double now = run::UnixNow();
  // Damaged heartbeats and state, named with their paths under the run's
  // public name (never the server's folders).
  std::vector<std::string> damaged;
  std::string damage;
  json trainer = run::TrainerJson(dir, now, &damage);
  if (!damage.empty()) damaged.push_back(damage);
  json workers = run::WorkersJson(dir, now, &damaged);
  const std::string state_damage = run::ReadRunState(dir).damage;
  if (!state_damage.empty()) damaged.push_back(state_damage);
  for (std::string& line : damaged) line = UnderPublicName(run, line);
  return json{{"run", run.name}, {"trainer", trainer}, {"workers", workers}, {"damaged", damaged}};
}

json ServerImpl::RunGameList(const httplib::Request& request) {
  const RunView& run = RunAt(request.matches[1]);
  return json{{"run", run.name}, {"games", RunGames(run)}};
}

json ServerImpl::RunGameOf(const httplib::Request& request) {
  return RunGame(RunAt(request.matches[1]), request.get_param_value("name"));
}

}  // namespace loa::serve
