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
#include "run/checkpoints.h"
#include "run/metrics.h"
#include "run/run_dir.h"
#include "run/workers.h"
#include "serve/memory.h"
#include "serve/search_pool.h"
#include "serve/server_impl.h"

namespace loa::serve {
namespace {

namespace fs = std::filesystem;

// The page's files in web/ (index.html served as /), and their types.
struct PageFile {
  const char* name;
  const char* type;
};
constexpr PageFile kPageFiles[] = {
    {"index.html", "text/html; charset=utf-8"},     {"style.css", "text/css; charset=utf-8"},
    {"board.js", "text/javascript; charset=utf-8"}, {"play.js", "text/javascript; charset=utf-8"},
    {"runs.js", "text/javascript; charset=utf-8"},  {"app.js", "text/javascript; charset=utf-8"},
};

}  // namespace

std::string PublicName(const std::string& spec) { return PublicName(PlayerSpec::Parse(spec)); }

std::string PublicName(const PlayerSpec& spec) {
  return spec.TextMapped([](const std::string& key, const std::string& value) {
    // An external engine shows its program's name, never its arguments.
    if (key == "cmd") return fs::path(value.substr(0, value.find(' '))).filename().string();
    const fs::path path(value);
    const bool is_path =
        value.find('/') != std::string::npos || path.extension() == ".safetensors" || path.extension() == ".pt";
    if (!is_path) return value;
    // A run's export is net.safetensors in the run's folder: the folder names it.
    if (run::RunDir::IsExportPath(value)) return path.parent_path().filename().string();
    return path.stem().string();
  });
}

std::vector<std::string> DefaultPlayers(const std::vector<std::string>& runs) {
  std::vector<std::string> players;
  for (const std::string& run : runs)
    if (fs::is_regular_file(run::RunDir(run).ExportPath()))
      players.push_back(NetPlayerSpec(run::RunDir(run).ExportPath(), 400));
  if (fs::is_regular_file(DefaultNetPath())) players.push_back(DefaultEngineSpec());  // the shipped net
  players.push_back("ab:time=1");
  return players;
}

ServerImpl::ServerImpl(ServeOptions o) : options(std::move(o)), exposure(options) {
  for (const std::string& dir : options.runs) {
    run::RunDir(dir).CheckHoldsRun("--run ");
    std::string name = fs::path(dir).lexically_normal().filename().string();
    if (name.empty()) name = fs::path(dir).lexically_normal().parent_path().filename().string();
    runs.push_back({name, dir});
  }
  if (options.players.empty()) options.players = DefaultPlayers(options.runs);
  for (const std::string& spec : options.players) {
    // Each net is loaded once, now (a bad spec fails now), for every search.
    std::shared_ptr<Evaluator> evaluator = MakeSharedEvaluator(spec);
    const std::unique_ptr<Player> made = MakePlayer(spec, evaluator);
    std::vector<int> boards;
    for (int size = kMinBoardSize; size <= kBoardSize; ++size)
      if (made->PlaysBoardSize(size)) boards.push_back(size);
    // Two specs of one public name (two runs' folders alike) are told apart.
    const PlayerSpec parsed = PlayerSpec::Parse(spec);
    const std::string public_name = PublicName(parsed);
    std::string name = public_name;
    for (int n = 2; std::any_of(players.begin(), players.end(), [&](const auto& p) { return p.name == name; }); ++n)
      name = public_name + " #" + std::to_string(n);
    players.push_back({name, parsed, std::move(evaluator), std::move(boards)});
  }
  const int processors = int(std::max(1u, std::thread::hardware_concurrency()));
  const int max_running = options.max_searches > 0 ? options.max_searches : std::min(processors, 8);
  // A tab's player keeps its tree between requests: as many as run at once.
  searches = std::make_unique<SearchPool>(max_running, max_running);
  for (const PageFile& file : kPageFiles) CheckRegularFile(options.web_dir + "/" + file.name);
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
  // DNS rebinding, other machines and cross-site requests: the Host must
  // name this server, a server reachable from other machines asks for its
  // token, and a request that changes state from a page must come from
  // this server's own origin (Exposure).
  http.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    const std::string refusal = exposure.Refusal(request, port.load());
    if (refusal.empty()) return httplib::Server::HandlerResponse::Unhandled;
    response.status = 403;
    response.set_content(JsonText({{"error", refusal}}), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  // The URL's token becomes a cookie, for the page's own requests after it.
  http.set_post_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    if (exposure.TokenInQuery(request))
      response.set_header("Set-Cookie", "loaz_token=" + exposure.token() + "; Path=/; HttpOnly; SameSite=Strict");
  });
  Routes();
}

std::pair<PlayerSpec, std::shared_ptr<Evaluator>> ServerImpl::PlayerOf(const std::string& name) {
  for (const NamedPlayer& player : players)
    if (player.name == name) return {player.spec, player.evaluator};
  // "RUN step N": a checkpoint of a run given on the command line. Parsed by
  // hand, after a bound on the length: no regex runs on request data.
  if (name.size() > kMaxPlayerName)
    throw BadRequest{"player name of " + std::to_string(name.size()) + " characters; at most " +
                     std::to_string(kMaxPlayerName)};
  if (const std::optional<run::RunCheckpoint> checkpoint = run::ParseRunCheckpointName(name)) {
    for (const RunView& run : runs) {
      if (run.name != checkpoint->run) continue;
      const std::string path = run::RunDir(run.dir).CheckpointPath(checkpoint->step);
      if (!fs::is_regular_file(path))
        throw BadRequest{"run " + run.name + " has no checkpoint of " + run::CheckpointName(checkpoint->step)};
      CheckInsideRun(run, path, "checkpoints/" + fs::path(path).filename().string());
      const PlayerSpec parsed = PlayerSpec::Parse(NetPlayerSpec(path, 400));  // the request's one parse
      const std::string& spec = parsed.text();
      // Loads are bounded as searches are: those beyond the queue's room are refused at once.
      const SearchPool::Load load = searches->load();
      if (checkpoint_loads.fetch_add(1) >= load.max_running + load.max_waiting) {
        --checkpoint_loads;
        throw BadRequest{"the server is busy loading nets; try again", 503};
      }
      struct Done {
        std::atomic<int>& loads;
        ~Done() { --loads; }
      } done{checkpoint_loads};
      std::lock_guard<std::mutex> lock(checkpoints_mutex);
      auto& kept = checkpoint_evaluators;
      const auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& e) { return e.first == spec; });
      std::shared_ptr<Evaluator> evaluator;
      if (it != kept.end()) {
        evaluator = it->second;
        kept.erase(it);
      } else {
        try {
          evaluator = MakeSharedEvaluator(parsed);
        } catch (const Error& e) {
          // The message names the server's files: it goes to the server's log.
          std::fprintf(stderr, "loaz serve: player '%s': %s\n", name.c_str(), e.what());
          throw BadRequest{"player '" + Excerpt(name, 80) + "' cannot be loaded (the server's log says why)"};
        }
      }
      kept.emplace_back(spec, evaluator);
      if (kept.size() > kCheckpointEvaluators) kept.erase(kept.begin());
      return {parsed, evaluator};
    }
  }
  std::string known;
  for (const NamedPlayer& player : players) known += (known.empty() ? "" : ", ") + player.name;
  throw BadRequest{"unknown player '" + Excerpt(name, 60) +
                   "': players are chosen by name among those this server was started with (" + known +
                   ") or a run's checkpoint ('RUN step N'); a spec or a path in a request is refused"};
}

void ServerImpl::Routes() {
  // The endpoints, one row each: method, path (a pattern for the runs'), and
  // the handler, which returns its reply or (a search that streams) writes it.
  // A new endpoint is a row here and its handler beside its kind.
  struct Route {
    const char* method;
    const char* path;
    json (ServerImpl::*reply)(const httplib::Request&);
    void (ServerImpl::*write)(const httplib::Request&, httplib::Response&);
  };

  static const Route kRoutes[] = {
      {"GET", "/api/info", &ServerImpl::Info, nullptr},
      {"POST", "/api/position", &ServerImpl::Position, nullptr},
      {"POST", "/api/genmove", nullptr, &ServerImpl::Genmove},
      {"POST", "/api/analyse", nullptr, &ServerImpl::Analyse},
      {"POST", "/api/stop", &ServerImpl::StopSearch, nullptr},
      {"POST", "/api/solve", &ServerImpl::Solve, nullptr},
      {"POST", "/api/record/read", &ServerImpl::ReadRecordText, nullptr},
      {"POST", "/api/record/write", &ServerImpl::WriteRecordText, nullptr},
      {"GET", R"(/api/runs/(\d{1,6})/metrics)", &ServerImpl::RunMetricsOf, nullptr},
      {"GET", R"(/api/runs/(\d{1,6})/ratings)", &ServerImpl::RunRatings, nullptr},
      {"GET", R"(/api/runs/(\d{1,6})/checkpoints)", &ServerImpl::RunCheckpoints, nullptr},
      {"GET", R"(/api/runs/(\d{1,6})/workers)", &ServerImpl::RunWorkers, nullptr},
      {"GET", R"(/api/runs/(\d{1,6})/games)", &ServerImpl::RunGameList, nullptr},
      {"GET", R"(/api/runs/(\d{1,6})/game)", &ServerImpl::RunGameOf, nullptr},
  };

  const std::string& web = options.web_dir;
  for (const PageFile& page : kPageFiles)
    http.Get(page.name == std::string("index.html") ? "/" : "/" + std::string(page.name),
             StaticFile(web + "/" + page.name, page.type));
  http.Get("/vendor/chart.js", StaticFile(options.chart_js, "text/javascript; charset=utf-8"));
  for (const Route& route : kRoutes) {
    const httplib::Server::Handler answer =
        route.reply ? Answer(JsonHandler([this, &route](const httplib::Request& r) { return (this->*route.reply)(r); }))
                    : Answer(RawHandler([this, &route](const httplib::Request& r, httplib::Response& response) {
                        (this->*route.write)(r, response);
                      }));
    if (route.method == std::string("GET"))
      http.Get(route.path, answer);
    else
      http.Post(route.path, WithBoundedBody(answer));
  }
  http.set_error_handler(AnswerUnrouted);
}

json ServerImpl::Info(const httplib::Request&) {
  json run_list = json::array();
  for (size_t i = 0; i < runs.size(); ++i) run_list.push_back({{"index", i}, {"name", runs[i].name}});
  json names = json::array(), boards = json::object();
  for (const NamedPlayer& player : players) {
    names.push_back(player.name);
    boards[player.name] = player.boards;
  }
  const SearchPool::Load l = searches->load();
  const json load = {{"running", l.running},
                     {"waiting", l.waiting},
                     {"max_running", l.max_running},
                     {"max_waiting", l.max_waiting},
                     {"tabs", l.tabs}};
  return json{{"players", names}, {"boards", boards}, {"default_player", players.front().name},
              {"runs", run_list}, {"searches", load}, {"resident_bytes", ResidentBytes()}};
}

json ServerImpl::Position(const httplib::Request& request) { return StatusOf(GameOf(ParseBody(request))); }

json ServerImpl::ReadRecordText(const httplib::Request& request) {
  const std::string text = StringField(ParseBody(request), "text");
  try {
    const Record record = ParseRecord(text, "record");
    const Game game = ReplayRecord(record, record.rules, "record");
    json moves = json::array();
    for (Move m : game.moves()) moves.push_back(FormatMove(m));
    return json{
        {"fen", game.start().ToString()},
        {"moves", moves},
        {"rules",
         {{"simultaneous", SimultaneousName(game.rules().simultaneous)}, {"start", StartName(game.rules().start)}}}};
  } catch (const Error& e) {
    throw BadRequest{e.what()};
  }
}

json ServerImpl::WriteRecordText(const httplib::Request& request) {
  const json body = ParseBody(request);
  const Game game = GameOf(body);
  Tags tags = {{"Event", "loaz serve"}};
  for (const char* key : {"Black", "White"})
    if (const std::string name = StringField(body, key == std::string("Black") ? "black" : "white"); !name.empty())
      tags.push_back({key, TagValueOf(name, key)});
  return json{{"text", FormatRecord(game, tags)}};
}

WebServer::WebServer(ServeOptions options) : impl_(std::make_unique<ServerImpl>(std::move(options))) {}

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

const std::string& WebServer::token() const { return impl_->exposure.token(); }

bool WebServer::loopback() const { return impl_->exposure.loopback(); }

void WebServer::Stop() {
  impl_->searches->Shutdown();
  impl_->http.stop();
}

}  // namespace loa::serve
