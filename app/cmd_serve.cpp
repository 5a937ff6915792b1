// loaz serve: the web front end, Play and Runs (docs/SERVE.md).

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "app/cli.h"
#include "app/command.h"
#include "core/file_util.h"
#include "serve/server.h"

namespace loa::app {
namespace {

serve::WebServer* g_server = nullptr;

// How long open connections may keep the process after a stop.
constexpr int kShutdownGraceSeconds = 2;

// SIGINT and SIGTERM end the server from a thread of their own (Stop is not
// async-signal-safe); the handler only wakes it. The searches stop and the
// port closes at once; connections still open after the grace (a client
// trickling a request), or a second signal, end with the process: the
// server writes nothing that a sudden end could leave half-written (its
// records are written to a temporary file, then renamed).
void WaitForSignalThenStop() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int received = 0;
  sigwait(&signals, &received);
  if (g_server) g_server->Stop();
  const timespec grace = {kShutdownGraceSeconds, 0};
  const bool again = sigtimedwait(&signals, nullptr, &grace) > 0;
  std::fprintf(stderr, "loaz serve: %s: exiting with connections still open\n",
               again ? "a second signal" : "the shutdown's grace is over");
  std::fflush(stderr);
  std::_Exit(0);
}

}  // namespace

int RunServe(int argc, char** argv) {
  CLI::App cli{
      "Serve the web front end: play against the players given (default: each run's export, then\n"
      "the baseline) and watch runs learn. Binds 127.0.0.1 unless --host says otherwise; open\n"
      "http://HOST:PORT/ in a browser. The JSON API is in docs/SERVE.md.",
      argv[0]};
  serve::ServeOptions options;
  // A bundle's own copies where it has them (scripts/bundle.sh).
  options.web_dir = InstalledFile("web", LOAZ_WEB_DIR);
  options.chart_js = InstalledFile("share/chart.js/chart.min.js", LOAZ_CHART_JS);
  cli.add_option("--host", options.host, "address to listen on")->capture_default_str();
  cli.add_option("--port", options.port, "port (0: any free one)")->check(CLI::Range(0, 65535))->capture_default_str();
  cli.add_option("--player", options.players, "a player the page may choose, by this spec (repeatable)")
      ->allow_extra_args(false);
  cli.add_option("--run", options.runs, "a run directory to show (repeatable)")->allow_extra_args(false);
  cli.add_option("--searches", options.max_searches,
                 "moves searched at once (more wait, up to twice as many; 0: one per processor, at most 8)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cli.add_option("--web", options.web_dir, "the page's folder")->capture_default_str();
  cli.add_option("--chart-js", options.chart_js, "Chart.js (UMD build)")->capture_default_str();
  cli.add_option("--token", options.token,
                 "the token every request must carry (default: none on a loopback address; on any other, one "
                 "generated and printed in the URL)");
  cli.add_option("--allow-host", options.allowed_hosts,
                 "a Host name requests may carry beyond the address's own, e.g. a proxy's (repeatable)")
      ->allow_extra_args(false);
  LOAZ_PARSE(cli, argc, argv);

  // Signals are taken by the waiting thread alone.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  serve::WebServer server(options);
  const int port = server.Bind();
  g_server = &server;
  std::thread waiter(WaitForSignalThenStop);
  waiter.detach();
  if (!server.loopback())
    std::fprintf(stderr,
                 "loaz serve: warning: %s is reachable from other machines; every request must carry the token "
                 "(docs/SERVE.md, Exposure)\n",
                 options.host.c_str());
  char machine[256] = "localhost";
  gethostname(machine, sizeof machine - 1);
  const std::string shown_host = options.host == "0.0.0.0" || options.host == "::" ? machine : options.host;
  std::printf("loaz serve: http://%s:%d/%s (Ctrl-C stops)\n", shown_host.c_str(), port,
              server.token().empty() ? "" : ("?token=" + server.token()).c_str());
  std::fflush(stdout);
  server.Listen();
  g_server = nullptr;
  return 0;
}

}  // namespace loa::app
