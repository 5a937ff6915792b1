#pragma once
// What `loaz serve` serves (serve/server.h), below the server and its
// state (serve/server_impl.h).

#include <string>
#include <vector>

namespace loa::serve {

// What the server serves.
struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: an ephemeral port (Bind returns it)
  std::vector<std::string> players;  // player specs, each its own name
  std::vector<std::string> runs;     // run directories
  std::string web_dir;               // the page's files (index.html, style.css, board/play/runs/app.js)
  std::string chart_js;              // Chart.js, served as /vendor/chart.js
  // Searches (moves asked for) that run at once; those beyond wait in a
  // queue of twice as many, and any beyond that are answered 503 at once.
  // 0: one per processor, at most 8.
  int max_searches = 0;
  // The token every request must carry (docs/SERVE.md, Exposure): "" asks
  // none on a loopback address and generates one on any other.
  std::string token;
  // Host names a request may carry beyond the bound address's own (a name
  // the machine is reached by through a proxy or DNS).
  std::vector<std::string> allowed_hosts;
};

}  // namespace loa::serve
