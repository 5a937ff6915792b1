#include "serve/server.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>
#include <tuple>
#include <type_traits>

#include "core/error.h"
#include "core/file_util.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "core/record.h"
#include "mcts/cached_evaluator.h"
#include "net/torch_backend.h"
#include "play/mcts_player.h"
#include "play/player.h"
#include "play/spec.h"
#include "serve/memory.h"
#include "serve/search_pool.h"
#include "train/metrics.h"
#include "train/run_dir.h"

namespace loa::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The largest request body read; a game of a thousand moves is 10 KB.
constexpr size_t kMaxBodyBytes = 64 * 1024;
// The time a request body has to arrive once its headers have (a page's
// arrives in milliseconds): a body sent a byte at a time is cut off.
constexpr auto kBodySeconds = std::chrono::seconds(2);
// The HTTP workers: enough that dozens of slow or idle connections leave
// most of them free.
constexpr int kHttpWorkers = 128;
// The most moves a request's game may hold.
constexpr size_t kMaxMoves = 2000;
// The newest records of each kind a run's game list shows.
constexpr size_t kGamesListed = 30;
// The bounds of a request's limits.
constexpr double kMinSeconds = 0.01, kMaxSeconds = 60;
// A search's tree takes some 1.4 KB a playout: 100,000 playouts are about
// 140 MB, times the searches running at once.
constexpr int64_t kMaxPlayouts = 100000;
// How often a streamed search sends its state.
constexpr auto kStreamPeriod = std::chrono::milliseconds(200);
// Players of run checkpoints whose evaluators are kept (the last asked for).
constexpr size_t kCheckpointEvaluators = 4;
// The longest player name a request may give.
constexpr size_t kMaxPlayerName = 200;
// Metrics reads at once (each holds at most train::kJsonLinesChunkBytes of
// the file and its events); more wait their turn.
constexpr int kMaxMetricsReads = 2;

// A request the server refuses: status (400 unless said) with
// {"error": message}.
struct BadRequest {
  std::string message;
  int status = 400;
};

// A player the page may choose: its public name, its spec, and the
// evaluator that every search of it shares (null for kinds without one).
struct NamedPlayer {
  std::string name, spec;
  std::shared_ptr<Evaluator> evaluator;
};

// A search request, checked: the game, the player and the limit, the tab.
struct SearchRequest {
  Game game;
  std::string client;
  std::string spec;  // the player's, with the request's limit
  std::shared_ptr<Evaluator> evaluator;
  bool analyse = false;  // search without moving (Player::Analyse)
  double seconds = 0;    // the request's limit (0: none given)
  int64_t playouts = 0;

  // Whether the search's bounds are the request's rather than its player's
  // (Player::Analyse, Player::ChooseMoveWithin): an analysis, or a move of
  // the searches that take bounds with a limit given.
  bool OwnBounds() const {
    const bool bounded = spec.rfind("mcts:", 0) == 0 || spec.rfind("ab:", 0) == 0;
    return analyse || (bounded && (seconds > 0 || playouts > 0));
  }
};

// A run directory given on the command line, named by its folder.
struct RunView {
  std::string name, dir;
};

json ParseBody(const httplib::Request& request) {
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) throw BadRequest{"the body is not a JSON object"};
  return body;
}

// Returns body[key] as a string, or fallback when absent; throws naming the
// key when it is of another type.
std::string StringField(const json& body, const char* key, const std::string& fallback = "") {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw BadRequest{std::string("'") + key + "' must be a string"};
  return it->get<std::string>();
}

Rules RulesOf(const json& body) {
  const auto it = body.find("rules");
  Rules rules;
  if (it == body.end() || it->is_null()) return rules;
  if (!it->is_object())
    throw BadRequest{"'rules' must be an object: {\"simultaneous\": \"draw\", \"start\": \"standard\"}"};
  for (const auto& item : it->items())
    if (item.key() != "simultaneous" && item.key() != "start")
      throw BadRequest{"unknown rules option '" + Excerpt(item.key(), 40) + "' (simultaneous, start)"};
  // Each value is one of a closed set, matched whole: nothing from the
  // request is spliced into a rules string.
  const std::string simultaneous = StringField(*it, "simultaneous", "draw");
  if (simultaneous != "draw" && simultaneous != "mover")
    throw BadRequest{"rules 'simultaneous' is '" + Excerpt(simultaneous, 40) + "': draw or mover"};
  const std::string start = StringField(*it, "start", "standard");
  if (start != "standard" && start != "scrambled")
    throw BadRequest{"rules 'start' is '" + Excerpt(start, 40) + "': standard or scrambled"};
  rules.simultaneous = simultaneous == "draw" ? Simultaneous::kDraw : Simultaneous::kMover;
  rules.start = start == "standard" ? StartKind::kStandard : StartKind::kScrambled;
  return rules;
}

// Returns a player's name as a record's tag value: at most 100 characters,
// refused when it holds what a tag value cannot (a quote, a backslash, a
// bracket, a control character), which could close the tag and add others.
std::string TagValueOf(const std::string& name, const char* key) {
  for (unsigned char c : name)
    if (c == '"' || c == '\\' || c == '[' || c == ']' || c < 0x20 || c == 0x7f)
      throw BadRequest{std::string("'") + (key[0] == 'B' ? "black" : "white") +
                       "' holds a quote, backslash, bracket or control character, which a record's tag cannot"};
  return Excerpt(name, 100);
}

// Returns the text of a reply: invalid UTF-8 (a request's bytes quoted in a
// message) replaced, never thrown.
std::string JsonText(const json& reply) { return reply.dump(-1, ' ', false, json::error_handler_t::replace); }

// Builds the game a request describes: "fen" (its start; the rules' start
// when absent) and "moves" played from it, under "rules".
Game GameOf(const json& body) {
  const Rules rules = RulesOf(body);
  Position start = Position::Start(rules.start);
  const std::string fen = StringField(body, "fen");
  if (!fen.empty()) {
    try {
      start = Position::FromString(fen);
    } catch (const Error& e) {
      throw BadRequest{e.what()};
    }
  }
  Game game(rules, start);
  const auto moves = body.find("moves");
  if (moves == body.end() || moves->is_null()) return game;
  if (!moves->is_array()) throw BadRequest{"'moves' must be a list of moves such as [\"b1-b3\"]"};
  if (moves->size() > kMaxMoves) throw BadRequest{"more than " + std::to_string(kMaxMoves) + " moves"};
  for (const json& move : *moves) {
    const std::string where = "ply " + std::to_string(game.ply() + 1) + ": ";
    if (!move.is_string()) throw BadRequest{where + "a move must be a string such as \"b1-b3\""};
    if (game.over()) throw BadRequest{where + "move after the end of the game"};
    try {
      game.Play(ParseMove(move.get<std::string>(), game.position()));
    } catch (const Error& e) {
      throw BadRequest{where + e.what()};
    }
  }
  return game;
}

json StatusOf(const Game& game) {
  MoveList legal;
  game.LegalMoves(legal);
  json moves = json::array();
  for (Move m : legal) moves.push_back(FormatMove(m));
  return {{"fen", game.position().ToString()},
          {"start", game.start().ToString()},
          {"side", game.position().side_to_move() == kBlack ? "black" : "white"},
          {"ply", game.ply()},
          {"legal", moves},
          {"over", game.over()},
          {"result", ResultName(game.result())},
          {"reason", ReasonName(game.reason())}};
}

// Returns the hits of the evaluator's NN cache, 0 when it has none.
uint64_t CacheHits(const Evaluator* evaluator) {
  const auto* cached = dynamic_cast<const CachedEvaluator*>(evaluator);
  return cached ? cached->hits() : 0;
}

json AnalysisOf(const MoveAnalysis& a, const std::string& name, double wall_seconds) {
  json j = {{"player", name}, {"seconds", wall_seconds}};
  if (!a.available) return j;
  j["nodes"] = a.nodes;
  j["nodes_per_second"] = a.seconds > 0 ? double(a.nodes) / a.seconds : 0.0;
  json pv = json::array();
  for (Move m : a.pv) pv.push_back(FormatMove(m));
  j["pv"] = pv;
  if (!a.top.empty()) {
    j["value"] = a.value;
    j["wdl"] = {(1 - a.draw + a.value) / 2, a.draw, (1 - a.draw - a.value) / 2};
    json top = json::array();
    for (size_t i = 0; i < std::min<size_t>(a.top.size(), 8); ++i) {
      const MoveAnalysis::Candidate& c = a.top[i];
      top.push_back({{"move", FormatMove(c.move)}, {"visits", c.visits}, {"prior", c.prior}, {"q", c.q}, {"d", c.d}});
    }
    j["top"] = top;
    j["reused"] = a.reused;
  } else {
    j["depth"] = a.depth;
    j["score"] = a.score;
  }
  return j;
}

// The keys of a spec that limit its search.
const std::set<std::string>& LimitKeys() {
  static const std::set<std::string> keys = {"time", "playouts", "depth", "nodes", "sims"};
  return keys;
}

// Returns the spec without its limit keys: what players of one kind, net
// and settings but of any limit have alike.
std::string WithoutLimit(const std::string& spec) { return PlayerSpec::Parse(spec).TextWith(LimitKeys()); }

// Returns spec with its search limit replaced by the request's: time for
// `ab:` and `mcts:`, playouts for `mcts:`, sims for `rollout:`. Other kinds
// keep their own. Only numbers the server checked enter the spec.
std::string WithLimit(const std::string& spec, double seconds, int64_t playouts) {
  const PlayerSpec parsed = PlayerSpec::Parse(spec);
  const std::string& kind = parsed.kind();
  if (kind != "ab" && kind != "mcts" && kind != "rollout") return spec;
  if (seconds <= 0 && playouts <= 0) return spec;
  std::string limit;
  if (kind == "rollout")
    limit = "sims=" + std::to_string(playouts > 0 ? playouts : 1000);
  else if (kind == "mcts" && playouts > 0)
    limit = "playouts=" + std::to_string(playouts);
  else
    limit = "time=" + FormatDouble(seconds > 0 ? seconds : 1);
  return parsed.TextWith(LimitKeys(), limit);
}

// Returns the file names in dir matching pattern, newest first, at most n.
std::vector<std::string> NewestFiles(const std::string& dir, const std::regex& pattern, size_t n) {
  std::vector<std::pair<fs::file_time_type, std::string>> files;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!std::regex_match(name, pattern) || !it->is_regular_file()) continue;
    std::error_code time_error;
    files.push_back({it->last_write_time(time_error), name});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> names;
  for (size_t i = 0; i < files.size() && i < n; ++i) names.push_back(files[i].second);
  return names;
}

}  // namespace

std::string PublicName(const std::string& spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return spec;
  std::string name = spec.substr(0, colon + 1);
  const std::string rest = spec.substr(colon + 1);
  for (size_t begin = 0; begin <= rest.size();) {
    size_t end = rest.find(',', begin);
    if (end == std::string::npos) end = rest.size();
    std::string pair = rest.substr(begin, end - begin);
    const size_t equals = pair.find('=');
    if (equals != std::string::npos) {
      const fs::path value(pair.substr(equals + 1));
      const std::string text = value.string();
      const bool is_path =
          text.find('/') != std::string::npos || value.extension() == ".safetensors" || value.extension() == ".pt";
      if (is_path) {
        // A run's export is net.safetensors in the run's folder: the
        // folder names it.
        std::string short_name = value.stem().string();
        if (value.filename() == "net.safetensors" && !value.parent_path().filename().empty())
          short_name = value.parent_path().filename().string();
        pair = pair.substr(0, equals + 1) + short_name;
      }
    }
    name += (begin == 0 ? "" : ",") + pair;
    begin = end + 1;
  }
  return name;
}

std::vector<std::string> DefaultPlayers(const std::vector<std::string>& runs) {
  std::vector<std::string> players;
  for (const std::string& run : runs)
    if (fs::is_regular_file(run + "/net.safetensors"))
      players.push_back("mcts:net=" + run + "/net.safetensors,playouts=400");
  if (fs::is_regular_file(DefaultNetPath())) players.push_back(DefaultEngineSpec());  // the shipped net
  players.push_back("ab:time=1");
  return players;
}

struct WebServer::Impl {
  ServeOptions options;
  std::vector<NamedPlayer> players;
  std::vector<RunView> runs;
  // Before http: the HTTP workers (which hold leases) end first.
  std::unique_ptr<SearchPool> searches;
  httplib::Server http;
  std::atomic<int> port{0};  // the port bound, for the Host check
  // The evaluators of the run checkpoints asked for, newest last.
  std::mutex checkpoints_mutex;
  std::vector<std::pair<std::string, std::shared_ptr<Evaluator>>> checkpoint_evaluators;

  explicit Impl(ServeOptions o);
  void Routes();
  // Returns the spec of a player name and the evaluator its searches share.
  std::pair<std::string, std::shared_ptr<Evaluator>> PlayerOf(const std::string& name);
  bool HostAllowed(const std::string& host) const;
  SearchRequest ParseSearch(const json& body, bool analyse);
  std::unique_ptr<SearchPool::Lease> Begin(const SearchRequest& request);
  // Runs the search of a lease to its end and returns the reply.
  json Finish(SearchRequest& request, SearchPool::Lease& lease);
  void Search(const httplib::Request& http_request, httplib::Response& response, bool analyse);
  class StreamedSearch;
  // At most kMaxMetricsReads metrics reads at once; more wait their turn.
  class MetricsReadSlot;
  std::mutex metrics_mutex;
  std::condition_variable metrics_freed;
  int metrics_reads = 0;
  const RunView& RunAt(const std::string& index) const;
  json RunGames(const RunView& run) const;
  json RunGame(const RunView& run, const std::string& name) const;
};

class WebServer::Impl::MetricsReadSlot {
 public:
  explicit MetricsReadSlot(Impl& server) : server_(server) {
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
  Impl& server_;
};

WebServer::Impl::Impl(ServeOptions o) : options(std::move(o)) {
  for (const std::string& dir : options.runs) {
    if (!fs::is_directory(dir)) throw Error("--run " + dir + ": not a folder");
    if (!fs::exists(train::RunDir(dir).ConfigPath()))
      throw Error("--run " + dir + ": not a run directory (no config.yaml)");
    std::string name = fs::path(dir).lexically_normal().filename().string();
    if (name.empty()) name = fs::path(dir).lexically_normal().parent_path().filename().string();
    runs.push_back({name, dir});
  }
  if (options.players.empty()) options.players = DefaultPlayers(options.runs);
  for (const std::string& spec : options.players) {
    // Each net is loaded once, now (a bad spec fails now), for every search.
    std::shared_ptr<Evaluator> evaluator = MakeSharedEvaluator(spec);
    MakePlayer(spec, evaluator);
    // Two specs of one public name (two runs' folders alike) are told apart.
    std::string name = PublicName(spec);
    for (int n = 2; std::any_of(players.begin(), players.end(), [&](const auto& p) { return p.name == name; }); ++n)
      name = PublicName(spec) + " #" + std::to_string(n);
    players.push_back({name, spec, std::move(evaluator)});
  }
  const int processors = int(std::max(1u, std::thread::hardware_concurrency()));
  const int max_running = options.max_searches > 0 ? options.max_searches : std::min(processors, 8);
  // A tab's player keeps its tree between requests: as many as run at once.
  searches = std::make_unique<SearchPool>(max_running, max_running);
  for (const char* file : {"index.html", "app.js", "style.css"}) CheckRegularFile(options.web_dir + "/" + file);
  CheckRegularFile(options.chart_js);
  http.set_payload_max_length(kMaxBodyBytes);
  // Idle or slow connections: a worker waits at most 5 s for each read,
  // a kept-alive connection at most 2 s for its next request, a body has
  // 2 s in all (kBodySeconds), and 128 workers answer, so that a few dozen
  // idle or trickling sockets cannot shut others out.
  http.set_read_timeout(5, 0);
  http.set_write_timeout(5, 0);
  http.set_keep_alive_timeout(2);
  http.new_task_queue = [] { return new httplib::ThreadPool(kHttpWorkers); };
  // DNS rebinding and cross-site requests: on a loopback address the Host
  // must name the loopback, and a request that changes state from a page
  // must come from this server's own origin.
  http.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    const std::string host = request.get_header_value("Host");
    const std::string origin = request.get_header_value("Origin");
    std::string refusal;
    if (!HostAllowed(host))
      refusal = "Host '" + Excerpt(host, 60) + "' is not this server's address";
    else if (request.method == "POST" && !origin.empty() && origin != "http://" + host)
      refusal = "a request from the page of another origin ('" + Excerpt(origin, 60) + "') is refused";
    if (refusal.empty()) return httplib::Server::HandlerResponse::Unhandled;
    response.status = 403;
    response.set_content(JsonText({{"error", refusal}}), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  Routes();
}

bool WebServer::Impl::HostAllowed(const std::string& host) const {
  const bool loopback = options.host == "127.0.0.1" || options.host == "localhost" || options.host == "::1";
  if (!loopback) return true;  // served to a network on purpose: the Origin check remains
  const std::string suffix = ":" + std::to_string(port.load());
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"})
    if (host == name + suffix) return true;
  return false;
}

std::pair<std::string, std::shared_ptr<Evaluator>> WebServer::Impl::PlayerOf(const std::string& name) {
  for (const NamedPlayer& player : players)
    if (player.name == name) return {player.spec, player.evaluator};
  // "RUN step N": a checkpoint of a run given on the command line. Parsed by
  // hand, after a bound on the length: no regex runs on request data.
  if (name.size() > kMaxPlayerName)
    throw BadRequest{"player name of " + std::to_string(name.size()) + " characters; at most " +
                     std::to_string(kMaxPlayerName)};
  const std::size_t step_at = name.rfind(" step ");
  const std::string digits = step_at == std::string::npos ? "" : name.substr(step_at + 6);
  if (step_at != std::string::npos && step_at > 0 && !digits.empty() && digits.size() <= 12 &&
      digits.find_first_not_of("0123456789") == std::string::npos) {
    const std::string run_name = name.substr(0, step_at);
    for (const RunView& run : runs) {
      if (run.name != run_name) continue;
      const std::string path = train::RunDir(run.dir).CheckpointPath(std::stoll(digits));
      if (!fs::is_regular_file(path)) throw BadRequest{"run " + run.name + " has no checkpoint of step " + digits};
      const std::string spec = "mcts:net=" + path + ",playouts=400";
      std::lock_guard<std::mutex> lock(checkpoints_mutex);
      auto& kept = checkpoint_evaluators;
      const auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& e) { return e.first == spec; });
      std::shared_ptr<Evaluator> evaluator;
      if (it != kept.end()) {
        evaluator = it->second;
        kept.erase(it);
      } else {
        try {
          evaluator = MakeSharedEvaluator(spec);
        } catch (const Error& e) {
          // The message names the server's files: it goes to the server's log.
          std::fprintf(stderr, "loaz serve: player '%s': %s\n", name.c_str(), e.what());
          throw BadRequest{"player '" + Excerpt(name, 80) + "' cannot be loaded (the server's log says why)"};
        }
      }
      kept.emplace_back(spec, evaluator);
      if (kept.size() > kCheckpointEvaluators) kept.erase(kept.begin());
      return {spec, evaluator};
    }
  }
  std::string known;
  for (const NamedPlayer& player : players) known += (known.empty() ? "" : ", ") + player.name;
  throw BadRequest{"unknown player '" + Excerpt(name, 60) +
                   "': players are chosen by name among those this server was started with (" + known +
                   ") or a run's checkpoint ('RUN step N'); a spec or a path in a request is refused"};
}

SearchRequest WebServer::Impl::ParseSearch(const json& body, bool analyse) {
  SearchRequest r;
  r.game = GameOf(body);
  r.analyse = analyse;
  if (r.game.over()) throw BadRequest{"the game is over (" + std::string(ResultName(r.game.result())) + ")"};
  if (body.contains("seconds")) {
    if (!body["seconds"].is_number()) throw BadRequest{"'seconds' must be a number"};
    r.seconds = body["seconds"].get<double>();
    if (!(r.seconds >= kMinSeconds && r.seconds <= kMaxSeconds))
      throw BadRequest{"'seconds' must lie in [" + FormatDouble(kMinSeconds) + ", " + FormatDouble(kMaxSeconds) + "]"};
  }
  if (body.contains("playouts")) {
    if (!body["playouts"].is_number_integer()) throw BadRequest{"'playouts' must be an integer"};
    r.playouts = body["playouts"].get<int64_t>();
    if (r.playouts < 1 || r.playouts > kMaxPlayouts)
      throw BadRequest{"'playouts' must lie in [1, " + std::to_string(kMaxPlayouts) + "]"};
  }
  r.client = StringField(body, "client");
  if (r.client.size() > 64) throw BadRequest{"'client' is longer than 64 characters"};
  const std::string name = StringField(body, "player", players.front().name);
  std::string spec;
  std::tie(spec, r.evaluator) = PlayerOf(name);
  // An analysis searches until stopped or its bounds: the spec's own limit
  // does not end it.
  r.spec = analyse ? spec : WithLimit(spec, r.seconds, r.playouts);
  return r;
}

std::unique_ptr<SearchPool::Lease> WebServer::Impl::Begin(const SearchRequest& request) {
  try {
    // A request that sets its own bounds (an analysis, a move with seconds
    // or playouts) takes the tab's player of this kind, net and settings
    // whatever its limit, so that a move asked for after an analysis (or an
    // analysis after a move) keeps the tree.
    const std::string base = WithoutLimit(request.spec);
    return searches->Acquire(
        request.client, request.spec, [&] { return MakePlayer(request.spec, request.evaluator); },
        [&](const std::string& kept) { return request.OwnBounds() && WithoutLimit(kept) == base; });
  } catch (const Refused& e) {
    throw BadRequest{e.what(), e.status};
  } catch (const Error& e) {
    // The message may name the server's files: it goes to the server's log.
    std::fprintf(stderr, "loaz serve: player '%s': %s\n", PublicName(request.spec).c_str(), e.what());
    throw BadRequest{"player '" + Excerpt(PublicName(request.spec), 80) +
                     "' cannot be loaded (the server's log says why)"};
  }
}

json WebServer::Impl::Finish(SearchRequest& request, SearchPool::Lease& lease) {
  Player& player = lease.player();
  const uint64_t hits_before = CacheHits(request.evaluator.get());
  // An analysis without a limit runs until stopped, within the bounds of
  // any request: 60 s, and for a tree search 100,000 playouts (its memory).
  const bool tree = request.spec.rfind("mcts", 0) == 0;
  const int64_t nodes = request.playouts > 0 ? request.playouts : tree ? kMaxPlayouts : 0;
  const Move move = request.analyse
                        ? player.Analyse(request.game, request.seconds > 0 ? request.seconds : kMaxSeconds, nodes)
                    : request.OwnBounds() ? player.ChooseMoveWithin(request.game, request.seconds, request.playouts)
                                          : player.ChooseMove(request.game, Clock());
  json analysis = AnalysisOf(player.LastAnalysis(), PublicName(request.spec), lease.seconds());
  if (request.evaluator) analysis["cache_hits"] = CacheHits(request.evaluator.get()) - hits_before;
  if (request.analyse) return {{"best", FormatMove(move)}, {"analysis", analysis}};
  json reply = {{"move", FormatMove(move)}, {"analysis", analysis}};
  request.game.Play(move);
  reply["status"] = StatusOf(request.game);
  return reply;
}

// A search whose state streams to the page as it runs: JSON lines, one
// {"analysis": ...} every kStreamPeriod, then the reply with "done": true.
// The search runs on a thread of its own while the HTTP worker writes; a
// write that fails (the tab went away) stops it.
class WebServer::Impl::StreamedSearch {
 public:
  StreamedSearch(WebServer::Impl& server, SearchRequest request, std::unique_ptr<SearchPool::Lease> lease)
      : server_(server), request_(std::move(request)), lease_(std::move(lease)) {}
  ~StreamedSearch() { End(); }

  // The content provider: writes every line, then ends the stream.
  bool Write(httplib::DataSink& sink) {
    thread_ = std::thread([this] {
      json reply;
      try {
        reply = server_.Finish(request_, *lease_);
      } catch (const std::exception& e) {
        reply = {{"error", e.what()}};
      }
      reply["done"] = true;
      std::lock_guard<std::mutex> lock(mutex_);
      reply_ = JsonText(reply) + "\n";
      done_ = true;
      changed_.notify_all();
    });
    const std::string name = PublicName(request_.spec);
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (changed_.wait_for(lock, kStreamPeriod, [this] { return done_; })) break;
      }
      const json update = {{"analysis", AnalysisOf(lease_->player().CurrentAnalysis(), name, lease_->seconds())}};
      const std::string line = JsonText(update) + "\n";
      if (!sink.write(line.data(), line.size())) {
        lease_->player().Stop();
        End();
        return false;
      }
    }
    End();
    const bool written = sink.write(reply_.data(), reply_.size());
    sink.done();
    return written;
  }

  // Waits for the search and gives its slot back (also when the stream
  // never began).
  void End() {
    if (thread_.joinable()) thread_.join();
    lease_.reset();
  }

 private:
  WebServer::Impl& server_;
  SearchRequest request_;
  std::unique_ptr<SearchPool::Lease> lease_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool done_ = false;
  std::string reply_;
};

void WebServer::Impl::Search(const httplib::Request& http_request, httplib::Response& response, bool analyse) {
  const json body = ParseBody(http_request);
  SearchRequest request = ParseSearch(body, analyse);
  const auto stream = body.find("stream");
  if (stream != body.end() && !stream->is_boolean()) throw BadRequest{"'stream' must be true or false"};
  std::unique_ptr<SearchPool::Lease> lease = Begin(request);
  if (stream == body.end() || !stream->get<bool>()) {
    response.status = 200;
    response.set_content(JsonText(Finish(request, *lease)), "application/json");
    return;
  }
  auto job = std::make_shared<StreamedSearch>(*this, std::move(request), std::move(lease));
  response.status = 200;
  response.set_header("Cache-Control", "no-store");
  response.set_chunked_content_provider(
      "application/x-ndjson", [job](size_t, httplib::DataSink& sink) { return job->Write(sink); },
      [job](bool) { job->End(); });
}

const RunView& WebServer::Impl::RunAt(const std::string& index) const {
  const size_t i = std::stoul(index);  // the route's pattern allows digits only
  if (i >= runs.size())
    throw BadRequest{"no run " + index + " (this server shows " + std::to_string(runs.size()) + ")"};
  return runs[i];
}

json WebServer::Impl::RunGames(const RunView& run) const {
  static const std::regex record_pattern("[A-Za-z0-9_.-]+\\.txt");
  json games = json::array();
  for (const std::string& name : NewestFiles(train::RunDir(run.dir).GamesDir(), record_pattern, kGamesListed))
    games.push_back({{"kind", "selfplay"}, {"name", "games/" + name}});
  std::error_code error;
  std::vector<std::string> eval_names;
  for (fs::directory_iterator it(train::RunDir(run.dir).EvalDir() + "/games", error), end; !error && it != end;
       it.increment(error)) {
    const std::string folder = it->path().filename().string();
    if (!it->is_directory() || !std::regex_match(folder, std::regex("[A-Za-z0-9_.=:,-]+"))) continue;
    for (const std::string& name : NewestFiles(it->path().string(), record_pattern, 4))
      games.push_back({{"kind", "eval"}, {"name", "eval/games/" + folder + "/" + name}});
  }
  return games;
}

json WebServer::Impl::RunGame(const RunView& run, const std::string& name) const {
  // Only a record the listing offers: the name never becomes a path by itself.
  bool listed = false;
  for (const json& game : RunGames(run)) listed = listed || game["name"] == name;
  if (!listed) throw BadRequest{"run " + run.name + " lists no game '" + Excerpt(name, 80) + "'"};
  const std::string path = run.dir + "/" + name;
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

void WebServer::Impl::Routes() {
  // Every handler answers JSON; BadRequest and loa::Error become 400. A
  // handler returns its reply, or (taking the response too) writes it.
  auto api = [](auto&& handler) {
    return [handler](const httplib::Request& request, httplib::Response& response) {
      json reply;
      try {
        if constexpr (std::is_invocable_v<decltype(handler), const httplib::Request&, httplib::Response&>) {
          handler(request, response);
          return;
        } else {
          reply = handler(request);
          response.status = 200;
        }
      } catch (const BadRequest& e) {
        reply = {{"error", e.message}};
        response.status = e.status;
      } catch (const Error& e) {
        reply = {{"error", e.what()}};
        response.status = 400;
      }
      response.set_header("Cache-Control", "no-store");
      response.set_content(JsonText(reply), "application/json");
    };
  };
  // POST handlers read their body through a bounded reader: cpp-httplib's
  // payload bound covers a Content-Length body but not a chunked one.
  auto post = [this, api](const char* path, auto&& handler) {
    auto answer = api(handler);
    http.Post(path, [answer](const httplib::Request& request, httplib::Response& response,
                             const httplib::ContentReader& content) {
      std::string body;
      const std::string declared = request.get_header_value("Content-Length");
      bool too_large =
          declared.size() > 9 || (!declared.empty() && std::strtoull(declared.c_str(), nullptr, 10) > kMaxBodyBytes);
      // A body that trickles in holds its worker: it has kBodySeconds.
      const auto deadline = std::chrono::steady_clock::now() + kBodySeconds;
      bool too_slow = false;
      const bool read = !too_large && content([&](const char* data, size_t length) {
        too_large = too_large || body.size() + length > kMaxBodyBytes;
        too_slow = std::chrono::steady_clock::now() > deadline;
        if (!too_large && !too_slow) body.append(data, length);
        return !too_large && !too_slow;
      });
      if (too_slow) {
        response.status = 408;
        response.set_header("Connection", "close");
        response.set_content(JsonText({{"error", "the request body came too slowly (it has 2 s)"}}),
                             "application/json");
        return;
      }
      if (!read && !too_large) {
        response.status = 400;
        response.set_content(JsonText({{"error", "the request body could not be read"}}), "application/json");
        return;
      }
      if (too_large) {
        response.status = 413;
        response.set_header("Connection", "close");
        response.set_content(JsonText({{"error", "the request body is larger than 64 KiB"}}), "application/json");
        return;
      }
      httplib::Request bounded = request;
      bounded.body = std::move(body);
      answer(bounded, response);
    });
  };
  auto file = [](const std::string& path, const char* type) {
    return [path, type](const httplib::Request&, httplib::Response& response) {
      try {
        response.set_content(ReadFile(path, kMaxTextBytes), type);
      } catch (const Error& e) {
        response.status = 404;
        response.set_content(JsonText({{"error", e.what()}}), "application/json");
      }
    };
  };
  const std::string& web = options.web_dir;
  http.Get("/", file(web + "/index.html", "text/html; charset=utf-8"));
  http.Get("/app.js", file(web + "/app.js", "text/javascript; charset=utf-8"));
  http.Get("/style.css", file(web + "/style.css", "text/css; charset=utf-8"));
  http.Get("/vendor/chart.js", file(options.chart_js, "text/javascript; charset=utf-8"));

  http.Get("/api/info", api([this](const httplib::Request&) {
             json run_list = json::array();
             for (size_t i = 0; i < runs.size(); ++i) run_list.push_back({{"index", i}, {"name", runs[i].name}});
             json names = json::array();
             for (const NamedPlayer& player : players) names.push_back(player.name);
             const SearchPool::Load l = searches->load();
             const json load = {{"running", l.running},
                                {"waiting", l.waiting},
                                {"max_running", l.max_running},
                                {"max_waiting", l.max_waiting},
                                {"tabs", l.tabs}};
             return json{{"players", names},
                         {"default_player", players.front().name},
                         {"runs", run_list},
                         {"searches", load},
                         {"resident_bytes", ResidentBytes()}};
           }));
  post("/api/position", [](const httplib::Request& request) { return StatusOf(GameOf(ParseBody(request))); });
  post("/api/genmove",
       [this](const httplib::Request& request, httplib::Response& response) { Search(request, response, false); });
  post("/api/analyse",
       [this](const httplib::Request& request, httplib::Response& response) { Search(request, response, true); });
  post("/api/stop", [this](const httplib::Request& request) {
    const std::string client = StringField(ParseBody(request), "client");
    if (client.empty()) throw BadRequest{"'client' names the tab whose search stops"};
    return json{{"stopped", searches->Stop(client)}};
  });
  post("/api/record/read", [](const httplib::Request& request) {
    const std::string text = StringField(ParseBody(request), "text");
    try {
      const Record record = ParseRecord(text, "record");
      const Game game = ReplayRecord(record, record.rules, "record");
      json moves = json::array();
      for (Move m : game.moves()) moves.push_back(FormatMove(m));
      return json{{"fen", game.start().ToString()},
                  {"moves", moves},
                  {"rules",
                   {{"simultaneous", game.rules().simultaneous == Simultaneous::kDraw ? "draw" : "mover"},
                    {"start", game.rules().start == StartKind::kStandard ? "standard" : "scrambled"}}}};
    } catch (const Error& e) {
      throw BadRequest{e.what()};
    }
  });
  post("/api/record/write", [](const httplib::Request& request) {
    const json body = ParseBody(request);
    const Game game = GameOf(body);
    Tags tags = {{"Event", "loaz serve"}};
    for (const char* key : {"Black", "White"})
      if (const std::string name = StringField(body, key == std::string("Black") ? "black" : "white"); !name.empty())
        tags.push_back({key, TagValueOf(name, key)});
    return json{{"text", FormatRecord(game, tags)}};
  });
  http.Get(R"(/api/runs/(\d{1,6})/metrics)", api([this](const httplib::Request& request) {
             // From ?since= (the "next" of the last reply) on: a page
             // appends what is new instead of reading the run again.
             const RunView& run = RunAt(request.matches[1]);
             const std::string since = request.get_param_value("since");
             if (since.size() > 18 || since.find_first_not_of("0123456789") != std::string::npos)
               throw BadRequest{"'since' must be a byte offset (the 'next' of the last reply)"};
             const std::string file = request.get_param_value("file");
             if (file.size() > 48 || file.find_first_not_of("0123456789:") != std::string::npos)
               throw BadRequest{"'file' must be the 'file' of the last reply"};
             train::JsonLinesPiece piece;
             {
               MetricsReadSlot slot(*this);
               try {
                 piece = train::ReadJsonLinesPiece(train::RunDir(run.dir).MetricsPath(),
                                                   since.empty() ? 0 : std::stoull(since), file,
                                                   train::kJsonLinesChunkBytes);
               } catch (const IoError& e) {
                 std::fprintf(stderr, "loaz serve: run '%s': %s\n", run.name.c_str(), e.what());
                 throw BadRequest{
                     "run '" + run.name + "': its metrics.jsonl cannot be read (the server's log says why)", 500};
               }
             }
             json events = json::array();
             for (json& event : piece.objects) events.push_back(std::move(event));
             return json{{"run", run.name},    {"events", events},     {"next", piece.next}, {"size", piece.size},
                         {"more", piece.more}, {"reset", piece.reset}, {"file", piece.file}};
           }));
  http.Get(R"(/api/runs/(\d{1,6})/ratings)", api([this](const httplib::Request& request) {
             const RunView& run = RunAt(request.matches[1]);
             json ratings = json::array();
             try {
               ratings = json::parse(ReadFile(train::RunDir(run.dir).EvalDir() + "/ratings.json", kMaxTextBytes),
                                     nullptr, false);
             } catch (const IoError&) {
             }
             if (ratings.is_discarded() || !ratings.is_array()) ratings = json::array();
             return json{{"run", run.name}, {"ratings", ratings}};
           }));
  http.Get(
      R"(/api/runs/(\d{1,6})/checkpoints)", api([this](const httplib::Request& request) {
        const RunView& run = RunAt(request.matches[1]);
        const std::vector<int64_t> steps = train::RunDir(run.dir).ListCheckpoints();
        // A checkpoint plays only where LibTorch is (loaz-torch serve);
        // the run's export, when the server offers it, plays anywhere.
        const bool playable = GetTorchBackend() != nullptr;
        json list = json::array();
        for (int64_t step : steps)
          list.push_back({{"step", step}, {"player", run.name + " step " + std::to_string(step)}});
        json export_player = nullptr;
        const std::string export_path = run.dir + "/net.safetensors";
        for (const NamedPlayer& player : players)
          if (player.spec.find("net=" + export_path) != std::string::npos) export_player = player.name;
        return json{{"run", run.name}, {"checkpoints", list}, {"playable", playable}, {"export_player", export_player}};
      }));
  http.Get(R"(/api/runs/(\d{1,6})/games)", api([this](const httplib::Request& request) {
             const RunView& run = RunAt(request.matches[1]);
             return json{{"run", run.name}, {"games", RunGames(run)}};
           }));
  http.Get(R"(/api/runs/(\d{1,6})/game)", api([this](const httplib::Request& request) {
             const RunView& run = RunAt(request.matches[1]);
             return RunGame(run, request.get_param_value("name"));
           }));
  http.set_error_handler([](const httplib::Request& request, httplib::Response& response) {
    if (!response.body.empty()) return;
    std::string message;
    if (response.status == 413)
      message = "the request body is larger than 64 KiB";
    else if (response.status == 414)
      message = "the URL is longer than the server reads (8 KiB)";
    else if (request.method != "GET" && request.method != "POST" && !request.method.empty()) {
      // Whatever the path: no page or endpoint answers another method.
      response.status = 405;
      response.set_header("Allow", "GET, POST");
      message = "method '" + Excerpt(request.method, 20) + "' is not served (GET and POST are)";
    } else if (response.status == 404)
      message = "no such page or endpoint: " + Excerpt(request.path, 80);
    else
      message = "the request could not be read (a malformed request line, or a header over 8 KiB)";
    response.set_content(JsonText({{"error", message}}), "application/json");
  });
}

WebServer::WebServer(ServeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

WebServer::~WebServer() { Stop(); }

int WebServer::Bind() {
  const int port =
      impl_->options.port == 0
          ? impl_->http.bind_to_any_port(impl_->options.host)
          : (impl_->http.bind_to_port(impl_->options.host, impl_->options.port) ? impl_->options.port : -1);
  impl_->port = port;
  if (port <= 0)
    throw Error("serve: cannot listen on " + impl_->options.host + ":" + std::to_string(impl_->options.port) +
                " (in use, or not an address of this machine)");
  return port;
}

void WebServer::Listen() { impl_->http.listen_after_bind(); }

void WebServer::Stop() {
  impl_->searches->Shutdown();
  impl_->http.stop();
}

}  // namespace loa::serve
