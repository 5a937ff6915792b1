#pragma once
// `loaz serve`: a small web front end served by the binary itself
// (docs/SERVE.md). One page (web/) with two views, Play and Runs, over a
// JSON API that scripts may use too. Nothing a request carries is ever
// executed or opened: players are chosen by the names the server was
// started with, run files only from the run directories it was given, page
// files only from the page's folder.

#include <memory>
#include <string>
#include <vector>

#include "play/spec.h"
#include "serve/serve_options.h"

namespace loa::serve {

struct ServerImpl;  // its state and handlers (serve/server_impl.h)

// Returns the name the page and the API show for a player spec: the spec
// with every file path in it replaced by a short name (a run's export by
// its run's folder, another file by its stem), so that no answer shows the
// server's file system: "mcts:net=runs/quick/net.safetensors,playouts=400"
// is "mcts:net=quick,playouts=400".
std::string PublicName(const std::string& spec);
std::string PublicName(const PlayerSpec& spec);

// The players a server offers when none are given: each run's export
// (RUN/net.safetensors) at 400 playouts, the shipped net (nets/) at 1 s a
// move when it is there, then the baseline at 1 s a move.
std::vector<std::string> DefaultPlayers(const std::vector<std::string>& runs);

// The web front end. Threads: construct, Bind and Listen on one thread;
// Stop from any other (a signal's waiting thread) while Listen runs; the
// destructor after Listen has returned. Listen serves on its own pool of
// HTTP workers and the searches' threads. Lifetimes: it copies its options
// and owns its players, evaluators and searches.
class WebServer {
 public:
  // Checks the options (players built once, run directories and files
  // present); throws Error naming what is wrong.
  explicit WebServer(ServeOptions options);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // Binds the address; returns the port. Throws Error when it cannot.
  int Bind();
  // Serves requests until Stop (from another thread or a signal handler's
  // thread). Bind first.
  void Listen();
  // Stops Listen and any engine search in progress.
  void Stop();
  // The token every request must carry ("" for none), for the URL to print.
  const std::string& token() const;
  // Whether the address bound reaches this machine alone.
  bool loopback() const;

 private:
  std::unique_ptr<ServerImpl> impl_;
};

}  // namespace loa::serve
