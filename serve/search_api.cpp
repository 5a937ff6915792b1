// Moves and analyses: a request checked, its search run (streamed or
// not) on a player of the pool.

#include <chrono>
#include <cstdio>
#include <thread>

#include "core/error.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "play/player_kinds.h"
#include "play/spec.h"
#include "serve/server.h"
#include "serve/server_impl.h"
#include "solve/dfpn.h"

namespace loa::serve {

SearchRequest ServerImpl::ParseSearch(const json& body, bool analyse) {
  SearchRequest r;
  r.game = GameOf(body);
  r.analyse = analyse;
  if (r.game.over()) throw BadRequest{"the game is over (" + std::string(ResultName(r.game.result())) + ")"};
  r.seconds = SecondsOf(body, 0);
  if (body.contains("playouts")) {
    if (!body["playouts"].is_number_integer()) throw BadRequest{"'playouts' must be an integer"};
    r.playouts = body["playouts"].get<int64_t>();
    if (r.playouts < 1 || r.playouts > kMaxPlayouts)
      throw BadRequest{"'playouts' must lie in [1, " + std::to_string(kMaxPlayouts) + "]"};
  }
  r.client = StringField(body, "client");
  if (r.client.size() > 64) throw BadRequest{"'client' is longer than 64 characters"};
  const std::string name = StringField(body, "player", players.front().name);
  PlayerSpec spec;
  std::tie(spec, r.evaluator) = PlayerOf(name);
  // A net plays the board it was trained on (docs/RULES.md, Board sizes).
  const int size = r.game.position().size();
  if (r.evaluator && !r.evaluator->PlaysBoardSize(size))
    throw BadRequest{"player '" + Excerpt(name, 80) + "' does not play " + std::to_string(size) + "x" +
                     std::to_string(size) + " boards (a net plays the board it was trained on)"};
  // An analysis searches until stopped or its bounds: the spec's own limit
  // does not end it.
  r.spec = analyse ? spec : SpecWithLimit(spec, r.seconds, r.playouts);
  r.name = PublicName(r.spec);
  r.limits = LimitsOf(r.spec);
  return r;
}

std::unique_ptr<SearchPool::Lease> ServerImpl::Begin(const SearchRequest& request) {
  try {
    // A request that sets its own bounds (an analysis, a move with seconds
    // or playouts) takes the tab's player of this kind, net and settings
    // whatever its limit, so that a move asked for after an analysis (or an
    // analysis after a move) keeps the tree.
    const SearchPool::PlayerKey key{request.spec.text(), SpecWithoutLimit(request.spec)};
    return searches->Acquire(request.client, key, request.OwnBounds(),
                             [&] { return MakePlayer(request.spec, request.evaluator); });
  } catch (const Refused& e) {
    throw BadRequest{e.what(), e.status};
  } catch (const Error& e) {
    // The message may name the server's files: it goes to the server's log.
    std::fprintf(stderr, "loaz serve: player '%s': %s\n", request.name.c_str(), e.what());
    throw BadRequest{"player '" + Excerpt(request.name, 80) + "' cannot be loaded (the server's log says why)"};
  }
}

json ServerImpl::Finish(SearchRequest& request, SearchPool::Lease& lease) {
  Player& player = lease.player();
  const uint64_t hits_before = CacheHits(request.evaluator.get());
  // An analysis without a limit runs until stopped, within the bounds of
  // any request: 60 s, and for a tree search (the kind table says which)
  // 100,000 playouts (its memory).
  const int64_t nodes = request.playouts > 0 ? request.playouts : request.limits.tree ? kMaxPlayouts : 0;
  const Move move = request.analyse
                        ? player.Analyse(request.game, request.seconds > 0 ? request.seconds : kMaxSeconds, nodes)
                    : request.OwnBounds() ? player.ChooseMoveWithin(request.game, request.seconds, request.playouts)
                                          : player.ChooseMove(request.game, Clock());
  json analysis = AnalysisOf(player.LastAnalysis(), request.name, lease.seconds());
  if (request.evaluator) analysis["cache_hits"] = CacheHits(request.evaluator.get()) - hits_before;
  // Why it ended: asked to stop, its limit (the request's or the player's),
  // or the server's bound on an analysis that set none.
  const bool unlimited = request.analyse && request.seconds <= 0 && request.playouts <= 0;
  analysis["ended"] = lease.stopped() ? "stop" : unlimited ? "bound" : "limit";
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
class ServerImpl::StreamedSearch {
 public:
  StreamedSearch(ServerImpl& server, SearchRequest request, std::unique_ptr<SearchPool::Lease> lease)
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
    const std::string& name = request_.name;
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
  ServerImpl& server_;
  SearchRequest request_;
  std::unique_ptr<SearchPool::Lease> lease_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool done_ = false;
  std::string reply_;
};

void ServerImpl::Search(const httplib::Request& http_request, httplib::Response& response, bool analyse) {
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

void ServerImpl::Genmove(const httplib::Request& request, httplib::Response& response) {
  Search(request, response, false);
}

void ServerImpl::Analyse(const httplib::Request& request, httplib::Response& response) {
  Search(request, response, true);
}

json ServerImpl::Solve(const httplib::Request& request) {
  const json body = ParseBody(request);
  const Game game = GameOf(body);
  solve::SolveLimits limits;
  limits.seconds = SecondsOf(body, 10);
  std::unique_lock<std::mutex> lock(solve_mutex, std::try_to_lock);
  if (!lock.owns_lock()) throw BadRequest{"the solver is proving another position; try again when it is done", 503};
  solve::Solver solver(kSolverMegabytes);
  const solve::SolveResult r = solver.Solve(game, limits);
  json line = json::array();
  for (Move m : r.line) line.push_back(FormatMove(m));
  return json{{"result", solve::OutcomeName(r.outcome)},
              {"move", r.best_move.is_null() ? json() : json(FormatMove(r.best_move))},
              {"line", line},
              {"proof_plies", r.proof_plies},
              {"proof_size", r.proof_size},
              {"nodes", r.nodes},
              {"seconds", r.seconds}};
}

json ServerImpl::StopSearch(const httplib::Request& request) {
  const std::string client = StringField(ParseBody(request), "client");
  if (client.empty()) throw BadRequest{"'client' names the tab whose search stops"};
  return json{{"stopped", searches->Stop(client)}};
}

}  // namespace loa::serve
