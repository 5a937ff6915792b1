#pragma once
// The server's state and its handlers, split by topic: server.cpp (start,
// players, the routes), search_api.cpp (moves and analyses),
// runs_api.cpp (the runs' metrics, ratings, checkpoints and games).

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "serve/exposure.h"
#include "serve/request.h"
#include "serve/search_pool.h"
#include "serve/serve_options.h"

namespace loa::serve {

struct ServerImpl {
  ServeOptions options;
  Exposure exposure;  // the Host names and the token
  std::vector<NamedPlayer> players;
  std::vector<RunView> runs;
  // Before http: the HTTP workers (which hold leases) end first.
  std::unique_ptr<SearchPool> searches;
  httplib::Server http;
  std::atomic<int> port{0};  // the port bound, for the Host check
  // The evaluators of the run checkpoints asked for, newest last.
  std::mutex checkpoints_mutex;
  // Checkpoint loads in progress or waiting for checkpoints_mutex: at most
  // as many as the searches' queue holds (running and waiting); beyond, 503.
  std::atomic<int> checkpoint_loads{0};
  std::vector<std::pair<std::string, std::shared_ptr<Evaluator>>> checkpoint_evaluators;

  explicit ServerImpl(ServeOptions o);
  // Registers the pages and the endpoints of kRoutes (server.cpp).
  void Routes();

  // The endpoints' handlers, by kind: server.cpp (the server, positions,
  // records), search_api.cpp (moves, analyses, stops), runs_api.cpp (runs).
  json Info(const httplib::Request& request);
  json Position(const httplib::Request& request);
  json ReadRecordText(const httplib::Request& request);
  json WriteRecordText(const httplib::Request& request);
  void Genmove(const httplib::Request& request, httplib::Response& response);
  void Analyse(const httplib::Request& request, httplib::Response& response);
  json StopSearch(const httplib::Request& request);
  // The position proven by the solver (docs/SERVE.md): one at a time.
  json Solve(const httplib::Request& request);
  std::mutex solve_mutex;
  json RunMetricsOf(const httplib::Request& request);
  json RunRatings(const httplib::Request& request);
  json RunCheckpoints(const httplib::Request& request);
  json RunWorkers(const httplib::Request& request);
  json RunGameList(const httplib::Request& request);
  json RunGameOf(const httplib::Request& request);

  // Returns the parsed spec of a player name and the evaluator its searches
  // share.
  std::pair<PlayerSpec, std::shared_ptr<Evaluator>> PlayerOf(const std::string& name);
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
  // A piece of the run's metrics from byte `since` on (docs/SERVE.md).
  json RunMetrics(const RunView& run, const std::string& since, const std::string& file);
};

}  // namespace loa::serve
