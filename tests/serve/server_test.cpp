// The JSON API of `loaz serve` (docs/SERVE.md) against a real server on an
// ephemeral loopback port: each kind of player answers a legal move,
// malformed and illegal input is a 400 naming the fault, players are chosen
// only by name (a spec or a path in a request is refused), run files only
// from the run directories given.

#include "serve/server.h"
#include "tests/run/damage.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "core/notation.h"
#include "core/position.h"
#include "core/random.h"
#include "net/export.h"
#include "net/torch_backend.h"
#include "run/metrics.h"
#include "serve/exposure.h"
#include "tests/net/random_net.h"

namespace loa::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Returns a socket connected to the loopback port, or -1.
int ConnectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
  ::close(fd);
  return -1;
}

constexpr char kPlayers[][48] = {"random", "greedy", "ab:depth=2", "rollout:sims=64",
                                 "mcts:evaluator=uniform,playouts=32"};

// A tiny run directory: a config, metrics of each kind, ratings, a
// checkpoint name and a game record.
std::string MakeRun() {
  const fs::path root = fs::temp_directory_path() / ("loaz_serve_run_" + std::to_string(::getpid())) / "tiny";
  fs::remove_all(root.parent_path());
  for (const char* folder : {"checkpoints", "games", "eval", "selfplay", "workers"})
    fs::create_directories(root / folder);
  WriteFileAtomic((root / "config.yaml").string(), "run: {name: tiny}\n");
  WriteFileAtomic((root / "metrics.jsonl").string(),
                  "{\"event\":\"train\",\"step\":10,\"policy_loss\":3.1,\"value_loss\":1.0,\"time\":1}\n"
                  "{\"event\":\"validation\",\"step\":20,\"policy_loss\":3.0,\"value_loss\":0.9,\"time\":2}\n"
                  "{\"event\":\"rating\",\"step\":20,\"hours\":0.1,\"elo\":-50,\"elo_ci95\":80,\"time\":3}\n"
                  "{\"event\":\"sel");  // a line cut short by a kill
  WriteFileAtomic((root / "eval/ratings.json").string(),
                  R"([{"name":"ab:depth=1","elo":0,"ci95":0,"games":4,"score":0.5}])");
  WriteFileAtomic((root / "checkpoints/ckpt_00000020.pt").string(), "not read by these tests");
  WriteFileAtomic((root / "games/main-w0_000000_g0.txt").string(), "[Black \"x\"]\n\n1. d1-b3 h5-g4\n*\n");
  WriteFileAtomic(
      (root / "workers/a0.json").string(),
      R"({"name":"a0","host":"n1","job":"7_0","time":1,"games":12,"positions_per_hour":900,"net_step":20})");
  WriteFileAtomic((root / "trainer.json").string(), R"({"name":"trainer","host":"n2","time":1,"net_step":20})");
  WriteFileAtomic((root / "workers/a1.json").string(), R"({"name":"a1","ho)");  // cut short
  WriteExport((root / "net.safetensors").string(), testing::RandomExport(testing::SmallConfig(1, 8, 0, true), 5));
  return root.string();
}

// Starts a server of options on an ephemeral loopback port, serving on a
// thread of its own until the object goes.
class RunningServer {
 public:
  explicit RunningServer(ServeOptions options) {
    options.port = 0;
    options.web_dir = LOAZ_WEB_DIR;
    options.chart_js = LOAZ_CHART_JS;
    server_ = std::make_unique<WebServer>(options);
    port_ = server_->Bind();
    thread_ = std::thread([this] { server_->Listen(); });
  }
  ~RunningServer() { StopAndJoin(); }
  int port() const { return port_; }
  WebServer& server() { return *server_; }
  // Stops the server and waits until Listen returns.
  void StopAndJoin() {
    server_->Stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::unique_ptr<WebServer> server_;
  std::thread thread_;
  int port_ = 0;
};

class ServerTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    run_ = new std::string(MakeRun());
    ServeOptions options;
    options.port = 0;
    options.players.assign(std::begin(kPlayers), std::end(kPlayers));
    options.players.push_back("mcts:net=" + *run_ + "/net.safetensors,playouts=8");
    options.runs = {*run_};
    options.max_searches = 8;
    options.web_dir = LOAZ_WEB_DIR;
    options.chart_js = LOAZ_CHART_JS;
    server_ = new WebServer(options);
    port_ = server_->Bind();
    thread_ = new std::thread([] { server_->Listen(); });
  }
  static void TearDownTestSuite() {
    server_->Stop();
    thread_->join();
    delete thread_;
    delete server_;
    fs::remove_all(fs::path(*run_).parent_path());
    delete run_;
  }

  // Posts body to path; returns the status and the JSON reply.
  static std::pair<int, json> Post(const std::string& path, const std::string& body, int port = 0) {
    httplib::Client client("127.0.0.1", port ? port : port_);
    client.set_read_timeout(60, 0);
    const auto result = client.Post(path.c_str(), body, "application/json");
    if (!result) return {0, json()};
    return {result->status, json::parse(result->body, nullptr, false)};
  }
  static std::pair<int, json> Get(const std::string& path, int port = 0) {
    httplib::Client client("127.0.0.1", port ? port : port_);
    const auto result = client.Get(path.c_str());
    if (!result) return {0, json()};
    return {result->status, json::parse(result->body, nullptr, false)};
  }

  // The same, to the server on port.
  static std::pair<int, json> PostTo(int port, const std::string& path, const std::string& body) {
    return Post(path, body, port);
  }
  static std::pair<int, json> GetFrom(int port, const std::string& path) { return Get(path, port); }

  static std::string* run_;
  static WebServer* server_;
  static std::thread* thread_;
  static int port_;
};

std::string* ServerTest::run_ = nullptr;
WebServer* ServerTest::server_ = nullptr;
std::thread* ServerTest::thread_ = nullptr;
int ServerTest::port_ = 0;

TEST_F(ServerTest, EveryKindOfPlayerAnswersALegalMove) {
  const std::string after_two = "1bbbbbb1/w6w/w6w/w6w/w6w/wb5w/w6w/2bbbbb1 w";  // after b1-b3
  for (const char* player : kPlayers) {
    const auto [status, reply] = Post("/api/genmove", json{{"moves", {"b1-b3"}}, {"player", player}}.dump());
    ASSERT_EQ(status, 200) << player << ": " << reply.dump();
    const Position pos = Position::FromString(after_two);
    EXPECT_NO_THROW(ParseMove(reply["move"].get<std::string>(), pos)) << player << " played " << reply["move"];
    EXPECT_EQ(reply["analysis"]["player"], player);
    EXPECT_EQ(reply["status"]["ply"], 2);
  }
  // A search reports its candidates and a win/draw/loss estimate; the
  // baseline its depth and principal variation.
  const auto [status, mcts] = Post("/api/genmove", json{{"player", "mcts:evaluator=uniform,playouts=32"}}.dump());
  ASSERT_EQ(status, 200);
  EXPECT_FALSE(mcts["analysis"]["top"].empty());
  EXPECT_EQ(mcts["analysis"]["wdl"].size(), 3u);
  EXPECT_EQ(mcts["analysis"]["pv"][0], mcts["move"]);
  const json& top = mcts["analysis"]["top"];
  for (size_t i = 1; i < top.size(); ++i) EXPECT_GE(top[i - 1]["visits"], top[i]["visits"]);  // most visited first
  const auto [ab_status, ab] = Post("/api/genmove", json{{"player", "ab:depth=2"}}.dump());
  EXPECT_EQ(ab["analysis"]["depth"], 2);
  EXPECT_EQ(ab["analysis"]["pv"][0], ab["move"]);
}

TEST_F(ServerTest, SolveProvesThePositionShown) {
  const auto [status, reply] = Post("/api/solve", json{{"fen", "7w/8/7w/8/8/b7/8/b7 b"}, {"seconds", 5}}.dump());
  ASSERT_EQ(status, 200) << reply.dump();
  EXPECT_EQ(reply["result"], "won");
  EXPECT_EQ(reply["move"], "a3-b2");
  EXPECT_EQ(reply["line"], json::array({"a3-b2"}));
  EXPECT_EQ(reply["proof_plies"], 1);
  // A 6x6 start, far beyond a hundredth of a second: it says it did not finish.
  const auto [six_status, six] = Post("/api/solve", json{{"rules", {{"size", 6}}}, {"seconds", 0.01}}.dump());
  ASSERT_EQ(six_status, 200) << six.dump();
  EXPECT_EQ(six["result"], "unknown");
  EXPECT_TRUE(six["move"].is_null());
  const auto [bad, error] = Post("/api/solve", json{{"seconds", 1000}}.dump());
  EXPECT_EQ(bad, 400);
  EXPECT_NE(error["error"].get<std::string>().find("'seconds' must lie in"), std::string::npos);
  // The alpha-beta player plays a 6x6 board; a net of 8x8 does not.
  const auto [ab_status, ab] = Post("/api/genmove", json{{"rules", {{"size", 6}}}, {"player", "ab:depth=2"}}.dump());
  ASSERT_EQ(ab_status, 200) << ab.dump();
  EXPECT_NO_THROW(ParseMove(ab["move"].get<std::string>(), Position::Start(StartKind::kStandard, 6)));
  const json info = Get("/api/info").second;
  const std::string net = info["players"].back();
  // The info says which boards each player plays: the 8x8 net its own, the alpha-beta player all.
  EXPECT_EQ(info["boards"][net], json({8})) << info.dump();
  EXPECT_EQ(info["boards"]["ab:depth=2"], json({6, 7, 8})) << info.dump();
  const auto [net_status, refused] = Post("/api/genmove", json{{"rules", {{"size", 6}}}, {"player", net}}.dump());
  EXPECT_EQ(net_status, 400) << refused.dump();
  EXPECT_NE(refused["error"].get<std::string>().find("does not play 6x6 boards"), std::string::npos);
  const auto [mismatch, why] =
      Post("/api/solve", json{{"fen", "1bbbb1/w4w/w4w/w4w/w4w/1bbbb1 b"}, {"rules", {{"size", 8}}}}.dump());
  EXPECT_EQ(mismatch, 400);
  EXPECT_EQ(why["error"], "'fen' is a 6x6 position but the rules say size 8");
}

TEST_F(ServerTest, ALimitFromThePageReplacesThePlayersOwn) {
  const auto [status, reply] =
      Post("/api/genmove", json{{"player", "mcts:evaluator=uniform,playouts=32"}, {"playouts", 5}}.dump());
  ASSERT_EQ(status, 200) << reply.dump();
  EXPECT_EQ(reply["analysis"]["player"], "mcts:evaluator=uniform,playouts=5");
  const auto [bad, error] = Post("/api/genmove", json{{"player", "ab:depth=2"}, {"seconds", 1e9}}.dump());
  EXPECT_EQ(bad, 400);
  EXPECT_NE(error["error"].get<std::string>().find("'seconds' must lie in"), std::string::npos);
}

TEST_F(ServerTest, PositionsGiveLegalMovesAndTheEnd) {
  const auto [status, start] = Post("/api/position", "{}");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(start["legal"].size(), 36u);
  EXPECT_EQ(start["side"], "black");
  // Black unites with f8-f5.
  const auto [won_status, won] =
      Post("/api/position", json{{"fen", "5b2/6w1/8/8/5b2/4wwbb/1w2w3/w7 b"}, {"moves", {"f8-f5"}}}.dump());
  ASSERT_EQ(won_status, 200) << won.dump();
  EXPECT_TRUE(won["over"].get<bool>());
  EXPECT_EQ(won["result"], "black");
  EXPECT_EQ(won["reason"], "united");
  EXPECT_TRUE(won["legal"].empty());
  // Other programs' positions read too (docs/FORMATS.md): cutechess's FEN,
  // PlayStrategy's, and the rules of another program by their options.
  const auto [fen_status, fen] =
      Post("/api/position", json{{"fen", "5p2/6P1/8/8/5p2/4PPpp/1P2P3/P7 b - - 0 1"}, {"moves", {"f8f5"}}}.dump());
  ASSERT_EQ(fen_status, 200) << fen.dump();
  EXPECT_EQ(fen["result"], "black");
  const auto [ps_status, ps] =
      Post("/api/position", json{{"fen", "1LLLLLL1/l6l/l6l/l6l/l6l/l6l/l6l/1LLLLLL1 w - - 0 1"}}.dump());
  ASSERT_EQ(ps_status, 200) << ps.dump();
  EXPECT_EQ(ps["fen"], "1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b");
  const auto [stuck_status, stuck] =
      Post("/api/position", json{{"fen", "6wb/6ww/8/8/8/8/ww6/bw6 b"}, {"rules", {{"no_moves", "loss"}}}}.dump());
  ASSERT_EQ(stuck_status, 200) << stuck.dump();
  EXPECT_EQ(stuck["result"], "white");
  EXPECT_EQ(stuck["reason"], "no-moves");
}

TEST_F(ServerTest, BadInputIsA400NamingTheFault) {
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "not a JSON object"},
      {R"({"moves": "b1-b3"})", "'moves' must be a list"},
      {R"({"moves": ["b1-b3", "b1-b3"]})", "ply 2: move 'b1-b3'"},
      {R"({"moves": ["z9-z9"]})", "ply 1: move 'z9-z9'"},
      {R"({"fen": "8/8 q"})", "position '8/8 q'"},
      {R"({"rules": {"simultaneous": "maybe"}})", "simultaneous"},
      {R"({"rules": {"colour": "red"}})", "unknown rules option 'colour'"},
      {R"({"moves": [3]})", "a move must be a string"},
  };
  for (const auto& [body, expected] : cases) {
    const auto [status, reply] = Post("/api/position", body);
    EXPECT_EQ(status, 400) << body;
    EXPECT_NE(reply.value("error", "").find(expected), std::string::npos) << body << ": " << reply.dump();
  }
  const auto [over, reply] =
      Post("/api/genmove", json{{"fen", "5b2/6w1/8/8/5b2/4wwbb/1w2w3/w7 b"}, {"moves", {"f8-f5"}}}.dump());
  EXPECT_EQ(over, 400);
  EXPECT_NE(reply["error"].get<std::string>().find("the game is over"), std::string::npos);
}

TEST_F(ServerTest, SpecsAndPathsInARequestAreRefused) {
  for (const char* player : {"gtp:cmd=touch /tmp/loaz_serve_pwned", "mcts:net=/etc/passwd", "ab:depth=3", "../x"}) {
    const auto [status, reply] = Post("/api/genmove", json{{"player", player}}.dump());
    EXPECT_EQ(status, 400) << player;
    EXPECT_NE(reply["error"].get<std::string>().find("a spec or a path in a request is refused"), std::string::npos)
        << reply.dump();
  }
  EXPECT_FALSE(fs::exists("/tmp/loaz_serve_pwned"));
  // Run files: only what the listing offers.
  for (const char* name : {"../../../etc/passwd", "config.yaml", "games/../config.yaml"}) {
    const auto [status, reply] = Get(std::string("/api/runs/0/game?name=") + name);
    EXPECT_EQ(status, 400) << name;
  }
  EXPECT_EQ(Get("/api/runs/7/metrics").first, 400);
  // Page files: only the page's own.
  httplib::Client client("127.0.0.1", port_);
  EXPECT_EQ(client.Get("/../CMakeLists.txt")->status, 404);
  for (const char* script : {"/board.js", "/play.js", "/runs.js", "/app.js"})
    EXPECT_EQ(client.Get(script)->status, 200) << script;
  EXPECT_EQ(client.Get("/vendor/chart.js")->status, 200);
}

// Requests that crashed the server: a path with invalid UTF-8 quoted in the
// 404 (nlohmann-json threw from the handler), a player name long enough to
// overflow std::regex's stack, a rules value that smuggled a second rule.
TEST_F(ServerTest, HostileRequestsAreAnsweredNotFatal) {
  httplib::Client client("127.0.0.1", port_);
  for (const std::string& path : {std::string("/%ff"), "/" + std::string(79, 'a') + "%c3%a9", std::string("/\xff")}) {
    const auto result = client.Get(path.c_str());
    ASSERT_TRUE(result) << path << ": no answer";
    EXPECT_EQ(result->status, 404) << path;
    EXPECT_FALSE(json::parse(result->body, nullptr, false).is_discarded()) << path << ": " << result->body;
  }
  const auto [long_name, reply] = Post("/api/genmove", json{{"player", std::string(30000, 'x')}}.dump());
  EXPECT_EQ(long_name, 400);
  EXPECT_NE(reply.value("error", "").find("at most 200"), std::string::npos) << reply.dump();
  for (const char* value : {"draw max_plies=2", "draw start=scrambled", "mover\n"}) {
    const auto [status, answer] = Post("/api/position", json{{"rules", {{"simultaneous", value}}}}.dump());
    EXPECT_EQ(status, 400) << value;
    EXPECT_NE(answer.value("error", "").find("simultaneous: '"), std::string::npos) << answer.dump();
    EXPECT_NE(answer.value("error", "").find("is not one of draw|mover"), std::string::npos) << answer.dump();
  }
  // A name that would close its tag and add a FEN tag; a 50 KB token.
  const auto [tag, tag_reply] =
      Post("/api/record/write", json{{"black", "Eve\"]\n[FEN \"8/8/8/8/8/8/8/8 b\"]\n[X \""}}.dump());
  EXPECT_EQ(tag, 400);
  EXPECT_NE(tag_reply.value("error", "").find("'black' holds a quote"), std::string::npos) << tag_reply.dump();
  const auto [token, token_reply] =
      Post("/api/record/read", json{{"text", "1. d1-b3 h5-g4 " + std::string(50000, 'q')}}.dump());
  EXPECT_EQ(token, 400);
  EXPECT_LT(token_reply.value("error", "").size(), 400u) << "the error repeats the token";
  // Each error says what is wrong: a method, a NUL inside a position.
  httplib::Client raw("127.0.0.1", port_);
  httplib::Request trace;
  trace.method = "TRACE";
  trace.path = "/";
  const auto traced = raw.send(trace);
  ASSERT_TRUE(traced);
  EXPECT_EQ(traced->status, 405);
  EXPECT_NE(traced->body.find("method 'TRACE' is not served"), std::string::npos) << traced->body;
  // A method the server does not serve, on a page it does: 405, not 404.
  const auto deleted = raw.Delete("/api/info");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 405);
  EXPECT_EQ(deleted->get_header_value("Allow"), "GET, POST");
  EXPECT_NE(deleted->body.find("method 'DELETE' is not served"), std::string::npos) << deleted->body;
  // A NUL inside a rank: the message names it and goes on past it.
  const auto [letter, letter_reply] =
      Post("/api/position", json{{"fen", std::string("1bb\0bbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b", 43)}}.dump());
  EXPECT_EQ(letter, 400);
  EXPECT_NE(letter_reply.value("error", "").find("unknown letter '\\x00' in rank 8"), std::string::npos)
      << letter_reply.dump();
  const auto [nul, nul_reply] = Post("/api/position", json{{"fen", std::string("8/8 b\0junk", 10)}}.dump());
  EXPECT_EQ(nul, 400);
  EXPECT_NE(nul_reply.value("error", "").find("\\x00junk"), std::string::npos) << nul_reply.dump();
  EXPECT_EQ(Get("/api/info").first, 200);                                     // still serving
  EXPECT_GT(Get("/api/info").second.value("resident_bytes", int64_t{0}), 0);  // the server's memory, for watching it
}

// Two moves asked by one tab in both orders of finishing, then a stop and a
// third move: the clean-up of the older request must not leave an empty
// entry behind (it did, and the stop called through it).
TEST_F(ServerTest, ANewerRequestOfATabStopsItsOlderSearch) {
  // A tab searches one thing at a time: its newer request stops the older
  // search, which returns its move at once, and then runs.
  std::pair<int, json> older, newer;
  std::thread first([&] {
    older = Post("/api/genmove", json{{"player", "ab:depth=2"}, {"seconds", 30}, {"client", "tab-a"}}.dump());
  });
  auto running = [] { return Get("/api/info").second["searches"].value("running", -1); };
  for (int tries = 0; tries < 600 && running() < 1; ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  newer = Post("/api/genmove", json{{"player", "random"}, {"client", "tab-a"}}.dump());
  first.join();
  EXPECT_EQ(older.first, 200) << older.second.dump();
  EXPECT_EQ(older.second["analysis"].value("ended", ""), "stop") << "the older search ran on: " << older.second.dump();
  EXPECT_EQ(newer.first, 200) << newer.second.dump();
  EXPECT_EQ(Post("/api/stop", json{{"client", "tab-a"}}.dump()).second["stopped"], false);  // none left
}

// Posts a streamed search and returns its JSON lines; with stop_after > 0,
// drops the connection after that many lines.
// The JSON lines of a streamed reply; with stop_after, the connection drops
// after that many; `received`, when given, counts the lines as they come.
std::vector<json> StreamLines(int port, const std::string& path, const json& body, int stop_after = 0,
                              std::atomic<int>* received = nullptr) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(90, 0);
  std::string pending;
  std::vector<json> lines;
  httplib::Request request;
  request.method = "POST";
  request.path = path;
  request.body = body.dump();
  request.set_header("Content-Type", "application/json");
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    pending.append(data, length);
    for (size_t end; (end = pending.find('\n')) != std::string::npos;) {
      lines.push_back(json::parse(pending.substr(0, end), nullptr, false));
      pending.erase(0, end + 1);
      if (received) ++*received;
    }
    return stop_after == 0 || int(lines.size()) < stop_after;
  };
  client.send(request);
  return lines;
}

TEST_F(ServerTest, AStreamedMoveSendsTheSearchAsItRuns) {
  // Alpha-beta at 1 s a move: each finished depth, then the move. On a
  // loaded machine the time may allow only the first depth (the search
  // does not start one it cannot finish), so one update is all that is sure.
  const std::vector<json> lines =
      StreamLines(port_, "/api/genmove", {{"player", "ab:depth=2"}, {"seconds", 1}, {"stream", true}});
  ASSERT_GE(lines.size(), 2u);
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_FALSE(lines[i].contains("done")) << lines[i].dump();
    EXPECT_EQ(lines[i]["analysis"]["player"], "ab:time=1.0");
  }
  int depths = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) depths += lines[i]["analysis"].value("depth", 0) > 0;
  EXPECT_GE(depths, 1) << "no finished depth was sent";
  const json& last = lines.back();
  ASSERT_EQ(last.value("done", false), true) << last.dump();
  EXPECT_NO_THROW(ParseMove(last["move"].get<std::string>(), Position::Start()));
  EXPECT_EQ(last["status"]["ply"], 1);

  // An analysis by the net: at least two updates whose playouts grow, each
  // with candidates and a win/draw/loss estimate, then its best move; the
  // game does not move.
  const std::string net = Get("/api/info").second["players"].back();
  const std::vector<json> analysis =
      StreamLines(port_, "/api/analyse", {{"player", net}, {"seconds", 1}, {"stream", true}});
  ASSERT_GE(analysis.size(), 3u);
  int64_t previous = 0;
  for (size_t i = 0; i + 1 < analysis.size(); ++i) {
    const json& a = analysis[i]["analysis"];
    ASSERT_TRUE(a.contains("top")) << a.dump();
    EXPECT_EQ(a["wdl"].size(), 3u);
    EXPECT_GE(a["nodes"].get<int64_t>(), previous);
    previous = a["nodes"].get<int64_t>();
  }
  EXPECT_GT(previous, 0);
  ASSERT_EQ(analysis.back().value("done", false), true);
  EXPECT_FALSE(analysis.back().contains("status"));
  EXPECT_EQ(analysis.back()["best"], analysis.back()["analysis"]["pv"][0]);
  EXPECT_GE(analysis.back()["analysis"]["nodes"].get<int64_t>(), previous);
}

TEST_F(ServerTest, AnAnalysisRunsUntilItsTabStopsItOrGoes) {
  const std::string net = Get("/api/info").second["players"].back();
  auto running = [] { return Get("/api/info").second["searches"].value("running", -1); };
  // Stopped by its tab once an update has come (a fixed wait is not
  // enough on a loaded machine): the stream ends with the best move so far.
  std::vector<json> lines;
  std::atomic<int> received{0};
  std::thread analyse([&] {
    lines = StreamLines(port_, "/api/analyse", {{"player", net}, {"client", "tab-s"}, {"stream", true}}, 0, &received);
  });
  for (int tries = 0; tries < 3000 && received < 1; ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(running(), 1);
  EXPECT_EQ(Post("/api/stop", json{{"client", "tab-s"}}.dump()).second["stopped"], true);
  analyse.join();
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.back().value("done", false), true) << lines.back().dump();
  EXPECT_EQ(lines.back()["analysis"].value("ended", ""), "stop") << lines.back().dump();
  // A tab that goes away (its connection dropped after two updates) ends
  // its search: the slot comes free.
  const std::vector<json> dropped = StreamLines(port_, "/api/analyse", {{"player", net}, {"stream", true}}, 2);
  EXPECT_EQ(dropped.size(), 2u);
  for (int tries = 0; tries < 600 && running() > 0; ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(running(), 0) << "the search of a tab that went away runs on";
}

TEST_F(ServerTest, ATabsNextMoveReusesItsTreeAndEveryTabTheNetsCache) {
  const std::string net = Get("/api/info").second["players"].back();
  auto genmove = [&](const std::string& client, const json& moves) {
    const auto [status, reply] =
        Post("/api/genmove", json{{"player", net}, {"playouts", 300}, {"client", client}, {"moves", moves}}.dump());
    EXPECT_EQ(status, 200) << reply.dump();
    return reply["analysis"];
  };
  const json first = genmove("tab-r", json::array());
  ASSERT_GE(first["pv"].size(), 2u) << first.dump();
  EXPECT_EQ(first["reused"], 0);
  // The tab's next move, after the reply its search expected: the subtree
  // of that line is kept.
  const json second = genmove("tab-r", {first["pv"][0], first["pv"][1]});
  EXPECT_GT(second["reused"].get<int64_t>(), 0) << second.dump();
  // Another tab searching the first position finds its net's outputs in
  // the cache that the first tab's search filled; so does the first tab in
  // a new game.
  const json other = genmove("tab-q", json::array());
  EXPECT_EQ(other["reused"], 0);
  EXPECT_GT(other["cache_hits"].get<int64_t>(), 0) << other.dump();
  const json again = genmove("tab-r", json::array());
  EXPECT_GT(again["cache_hits"].get<int64_t>(), 0) << again.dump();
  EXPECT_GE(Get("/api/info").second["searches"]["tabs"].get<int>(), 2);
  // An analysis (its own bounds) and then a move (the page's limit) of one
  // tab: the move starts from the analysis's tree.
  const json moves = {again["pv"][0]};
  const auto [analysed, analysis] =
      Post("/api/analyse", json{{"player", net}, {"playouts", 200}, {"client", "tab-r"}, {"moves", moves}}.dump());
  ASSERT_EQ(analysed, 200) << analysis.dump();
  const json after = genmove("tab-r", moves);
  EXPECT_GE(after["reused"].get<int64_t>(), 200) << after.dump();
  // The page's order: an analysis of a fresh tab first, then a move with a
  // time limit, then one with playouts: each starts from the tree before.
  const auto [fresh, fresh_analysis] =
      Post("/api/analyse", json{{"player", net}, {"playouts", 200}, {"client", "tab-t"}, {"moves", moves}}.dump());
  ASSERT_EQ(fresh, 200) << fresh_analysis.dump();
  const auto [timed, timed_move] =
      Post("/api/genmove", json{{"player", net}, {"seconds", 0.2}, {"client", "tab-t"}, {"moves", moves}}.dump());
  ASSERT_EQ(timed, 200) << timed_move.dump();
  EXPECT_GE(timed_move["analysis"]["reused"].get<int64_t>(), 200) << timed_move.dump();
  const json replied = {moves[0], timed_move["move"]};
  const json counted = genmove("tab-t", replied);
  EXPECT_GT(counted["reused"].get<int64_t>(), 0) << counted.dump();
}

TEST_F(ServerTest, ARolloutAnalysisIsBoundedLikeAnMctsOne) {
  // The kind table, not the kind's name, says that a rollout search is a
  // tree search: an analysis's playouts bound it as they bound mcts's.
  const auto [status, reply] =
      Post("/api/analyse", json{{"player", "rollout:sims=64"}, {"playouts", 150}, {"client", "tab-b"}}.dump());
  ASSERT_EQ(status, 200) << reply.dump();
  EXPECT_GE(reply["analysis"]["nodes"].get<int64_t>(), 100) << reply.dump();
  EXPECT_LE(reply["analysis"]["nodes"].get<int64_t>(), 160) << reply.dump();
  EXPECT_EQ(reply["analysis"]["ended"], "limit") << reply.dump();  // its request's playouts
}

// Every player stops when asked: a 20-second alpha-beta move ends when its
// tab sends /api/stop.
TEST_F(ServerTest, AStopEndsAnAlphaBetaSearch) {
  std::pair<int, json> move;
  std::thread search([&] {
    move = Post("/api/genmove", json{{"player", "ab:depth=2"}, {"seconds", 20}, {"client", "tab-ab"}}.dump());
  });
  // The stop once the search runs (a stop before it would find none).
  auto running = [] { return Get("/api/info").second["searches"].value("running", -1); };
  for (int tries = 0; tries < 1500 && running() < 1; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto [status, stopped] = Post("/api/stop", json{{"client", "tab-ab"}}.dump());
  EXPECT_EQ(status, 200);
  EXPECT_EQ(stopped["stopped"], true) << "the stop found no search of the tab";
  search.join();
  ASSERT_EQ(move.first, 200) << move.second.dump();
  // The stop ended it, not its 20 s.
  EXPECT_EQ(move.second["analysis"].value("ended", ""), "stop") << move.second.dump();
}

// A page of another site cannot use the server: not by DNS rebinding (a
// Host that is not the loopback) nor by a cross-origin POST.
TEST_F(ServerTest, OtherHostsAndOriginsAreRefused) {
  httplib::Client client("127.0.0.1", port_);
  const auto rebound = client.Get("/api/info", {{"Host", "evil.example"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  EXPECT_NE(rebound->body.find("is not this server's address"), std::string::npos) << rebound->body;
  const auto cross = client.Post("/api/position", {{"Origin", "http://evil.example"}}, "{}", "text/plain");
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->status, 403);
  const std::string own = "http://127.0.0.1:" + std::to_string(port_);
  const auto same = client.Post("/api/position", {{"Origin", own}}, "{}", "application/json");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200) << same->body;
  const auto named = client.Get("/api/info", {{"Host", "localhost:" + std::to_string(port_)}});
  ASSERT_TRUE(named);
  EXPECT_EQ(named->status, 200);
}

TEST_F(ServerTest, RequestBodiesAreBounded) {
  const auto [status, reply] = Post("/api/position", std::string(200 * 1024, ' '));
  EXPECT_EQ(status, 413);
  // Chunked (no Content-Length): 10 MB offered, refused at 64 KiB.
  httplib::Client client("127.0.0.1", port_);
  size_t sent = 0;
  const auto chunked = client.Post(
      "/api/position",
      [&sent](size_t, httplib::DataSink& sink) {
        if (sent >= 10u << 20) {
          sink.done();
          return true;
        }
        const std::string chunk(16 * 1024, ' ');
        sent += chunk.size();
        return sink.write(chunk.data(), chunk.size());
      },
      "application/json");
  if (chunked) {
    EXPECT_EQ(chunked->status, 413);  // or the connection closed under the sender
  }
  EXPECT_LT(sent, size_t(10u << 20)) << "the server read the whole chunked body";
  const auto [small, answer] = Post("/api/position", "{}");
  EXPECT_EQ(small, 200) << answer.dump();
}

TEST(PublicNameTest, PathsBecomeShortNames) {
  EXPECT_EQ(PublicName("mcts:net=/data/u/runs/quick/net.safetensors,playouts=400"), "mcts:net=quick,playouts=400");
  EXPECT_EQ(PublicName("mcts:net=nets/default.safetensors,time=1"), "mcts:net=default,time=1");
  EXPECT_EQ(PublicName("mcts:playouts=9,net=/r/checkpoints/ckpt_00000200.pt"), "mcts:playouts=9,net=ckpt_00000200");
  EXPECT_EQ(PublicName("gtp:cmd=/usr/bin/engine"), "gtp:cmd=engine");
  // The spec's own reader: a cmd value's commas and '=' are the command's,
  // and its arguments (paths among them) stay private.
  EXPECT_EQ(PublicName("gtp:timeout=5,cmd=/srv/bin/engine --net=/srv/a.pt,x"), "gtp:timeout=5,cmd=engine");
  for (const char* spec : {"ab:time=1", "random", "mcts:evaluator=uniform,playouts=32"})
    EXPECT_EQ(PublicName(spec), spec);
}

// Row 13: a player given by a path is named by its run, in the list, the
// analysis and the errors, and chosen by that name.
TEST_F(ServerTest, PlayersAreNamedWithoutPaths) {
  const auto [status, info] = Get("/api/info");
  ASSERT_EQ(status, 200);
  EXPECT_NE(std::find(info["players"].begin(), info["players"].end(), "mcts:net=tiny,playouts=8"),
            info["players"].end())
      << info.dump();
  EXPECT_EQ(info.dump().find(fs::temp_directory_path().string()), std::string::npos) << info.dump();
  const auto [move_status, move] = Post("/api/genmove", json{{"player", "mcts:net=tiny,playouts=8"}}.dump());
  ASSERT_EQ(move_status, 200) << move.dump();
  EXPECT_EQ(move["analysis"]["player"], "mcts:net=tiny,playouts=8");
  const auto [unknown, error] = Post("/api/genmove", json{{"player", "nobody"}}.dump());
  EXPECT_EQ(unknown, 400);
  EXPECT_EQ(error.dump().find(fs::temp_directory_path().string()), std::string::npos) << error.dump();
}

// Rows 4 and 7: with 8 searches running, the page, the info and a stop
// answer while every search still runs; each search stops when asked; a
// request without a client is still a bounded search; a stop must name its
// tab.
TEST_F(ServerTest, EightSearchesRunningLeaveThePageAndTheStopAnswering) {
  constexpr int kSearches = 8;
  std::vector<std::pair<int, json>> moves(kSearches);
  std::vector<std::thread> searches;
  for (int i = 0; i < kSearches; ++i)
    searches.emplace_back([&, i] {
      moves[i] = Post("/api/genmove",
                      json{{"player", "ab:depth=2"}, {"seconds", 30}, {"client", "load-" + std::to_string(i)}}.dump());
    });
  auto running = [] { return Get("/api/info").second["searches"].value("running", -1); };
  // A bounded poll until all eight run (the threads need a moment to connect).
  for (int tries = 0; tries < 600 && running() < kSearches; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(running(), kSearches);
  httplib::Client client("127.0.0.1", port_);
  const auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(running(), kSearches) << "a search ended before the page was served";
  for (int i = 0; i < kSearches; ++i) {
    const auto [status, reply] = Post("/api/stop", json{{"client", "load-" + std::to_string(i)}}.dump());
    EXPECT_EQ(status, 200);
    EXPECT_EQ(reply["stopped"], true);
  }
  for (std::thread& t : searches) t.join();
  for (const auto& [status, reply] : moves) {
    EXPECT_EQ(status, 200) << reply.dump();
    EXPECT_EQ(reply["analysis"].value("ended", ""), "stop") << "a search ran on after its stop: " << reply.dump();
  }
  EXPECT_EQ(running(), 0);
  EXPECT_EQ(Post("/api/stop", "{}").first, 400);
  EXPECT_EQ(Post("/api/stop", json{{"client", "load-0"}}.dump()).second["stopped"], false);
  const auto [huge, reply] = Post("/api/genmove", json{{"playouts", 1000000}}.dump());
  EXPECT_EQ(huge, 400);
  EXPECT_NE(reply.value("error", "").find("'playouts' must lie in [1, 100000]"), std::string::npos);
}

// Row 7: beyond the searches running and the queue the server answers 503
// at once; a search stopped while it waits never runs (409); SIGTERM's Stop
// ends a search that names no client and the server with it.
TEST(ServerLoadTest, TheQueueIsBoundedAndStopEndsEverySearch) {
  ServeOptions options;
  options.players = {"ab:depth=2"};
  options.max_searches = 1;  // one runs, two may wait
  RunningServer server(options);
  const int port = server.port();
  auto post = [port](const json& body) { return ServerTest::PostTo(port, "/api/genmove", body.dump()); };
  auto load = [port] { return ServerTest::GetFrom(port, "/api/info").second["searches"]; };
  std::pair<int, json> first, queued, stopped_while_waiting;
  std::thread a([&] { first = post({{"seconds", 30}}); });  // no client
  for (int tries = 0; tries < 600 && load().value("running", 0) < 1; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::thread b([&] { stopped_while_waiting = post({{"seconds", 30}, {"client", "b"}}); });
  std::thread c([&] { queued = post({{"seconds", 30}, {"client", "c"}}); });
  for (int tries = 0; tries < 600 && load().value("waiting", 0) < 2; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(load()["waiting"], 2);
  const auto [busy, busy_reply] = post({{"seconds", 1}});
  EXPECT_EQ(busy, 503);
  EXPECT_NE(busy_reply.value("error", "").find("busy"), std::string::npos) << busy_reply.dump();
  EXPECT_EQ(ServerTest::PostTo(port, "/api/stop", json{{"client", "b"}}.dump()).first, 200);
  b.join();
  EXPECT_EQ(stopped_while_waiting.first, 409) << stopped_while_waiting.second.dump();
  // The server stops (as on SIGTERM): the running search and the waiting
  // one end, and Listen returns.
  server.StopAndJoin();
  a.join();
  c.join();
  EXPECT_EQ(first.first, 200) << first.second.dump();
  EXPECT_EQ(first.second["analysis"].value("ended", ""), "stop") << first.second.dump();
  EXPECT_EQ(queued.first, 503) << queued.second.dump();
}

// Connections that send a POST body a byte at a time do not hold every
// worker: with 70 of them open the server answers at once, and a body that
// goes on trickling is cut off (its bound, kBodySeconds) before it is in.
TEST_F(ServerTest, TricklingBodiesDoNotHoldEveryWorker) {
  std::vector<int> sockets;
  const std::string head = "POST /api/position HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                           "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
  for (int i = 0; i < 70; ++i) {
    const int fd = ConnectTo(port_);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), ssize_t(head.size()));
    sockets.push_back(fd);
  }
  // Within the 5 s a worker waits for each read: the server has workers left.
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(3, 0);
  client.set_read_timeout(3, 0);
  const auto info = client.Get("/api/info");
  ASSERT_TRUE(info) << "no answer while 70 bodies trickle";
  EXPECT_EQ(info->status, 200);
  // The newest body trickles on, a byte every 50 ms: it is refused (408,
  // saying why) before its 100 bytes are in, whatever the time each byte
  // takes. (The first ones' reads may already have waited their 5 s: 70
  // connections take seconds to be accepted.)
  const int trickling = sockets.back();
  char reply[512] = {};
  int sent = 1;
  for (; sent < 100; ++sent) {
    pollfd ready{trickling, POLLIN, 0};
    if (::poll(&ready, 1, 50) > 0) break;
    if (::send(trickling, "\"", 1, MSG_NOSIGNAL) != 1) break;
  }
  EXPECT_LT(sent, 100) << "the whole body was taken";
  std::string answer;  // to the end: the server closes the connection
  for (ssize_t got; (got = ::recv(trickling, reply, sizeof reply, 0)) > 0;) answer.append(reply, size_t(got));
  EXPECT_EQ(answer.rfind("HTTP/1.1 408", 0), 0u) << answer;
  EXPECT_NE(answer.find("came too slowly"), std::string::npos) << answer;
  for (int fd : sockets) ::close(fd);
}

// Row 5: connections that send nothing do not shut others out.
TEST_F(ServerTest, IdleConnectionsDoNotShutOthersOut) {
  std::vector<int> sockets;
  for (int i = 0; i < 50; ++i) {
    const int fd = ConnectTo(port_);
    ASSERT_GE(fd, 0);
    sockets.push_back(fd);
  }
  EXPECT_EQ(Get("/api/info").first, 200);
  for (int fd : sockets) ::close(fd);
}

// Mutated requests, framed by a client and raw on a socket: every answer
// is JSON with a status the API uses, and the server answers to the end.
// A fixed number of seeded mutations (LOAZ_FUZZ_REQUESTS=N runs more by
// hand); a stall fails on the client's read timeout.
std::string Mutate(std::string text, Rng& rng) {
  const int edits = 1 + rng.Below(4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = text.empty() ? 0 : size_t(rng.Below(int(text.size())));
    switch (rng.Below(7)) {
      case 0:  // a random byte
        if (!text.empty()) text[at] = char(rng.Below(256));
        break;
      case 1:  // a byte inserted
        text.insert(at, 1, char(rng.Below(256)));
        break;
      case 2:  // a span deleted
        text.erase(at, size_t(rng.Below(8)));
        break;
      case 3:  // a span repeated
        text.insert(at, text.substr(at, size_t(rng.Below(16))), 0, std::string::npos);
        break;
      case 4: {  // a token of the API's vocabulary
        static const char* kTokens[] = {
            "\"moves\"",     "\"fen\"",    "\"rules\"",   "\"player\"", "\"seconds\"",
            "\"playouts\"",  "\"client\"", "null",        "[]",         "{}",
            "1e308",         "-1",         "\"\\u0000\"", "\"b1-b3\"",  "99999999999999999999",
            "\"ab:depth=2\""};
        text.insert(at, kTokens[rng.Below(int(std::size(kTokens)))]);
        break;
      }
      case 5:  // truncated
        text.resize(at);
        break;
      default:  // a long run of one byte
        text.insert(at, size_t(rng.Below(3000)), char(rng.Below(256)));
    }
  }
  return text;
}

bool IsApiStatus(int status) {
  for (int s : {200, 400, 403, 404, 405, 409, 413, 414, 431, 503})
    if (status == s) return true;
  return false;
}

TEST_F(ServerTest, FuzzTest) {
  const char* env = std::getenv("LOAZ_FUZZ_REQUESTS");
  const int requests = env ? std::atoi(env) : 1500;
  const std::pair<std::string, std::string> bases[] = {
      {"/api/position", R"({"moves": ["b1-b3", "h2-f2"], "rules": {"simultaneous": "mover"}})"},
      {"/api/genmove", R"({"moves": ["b1-b3"], "player": "random", "client": "fuzz", "playouts": 5})"},
      {"/api/record/read", R"({"text": "[Black \"a\"]\n\n1. b1-b3 h2-f2 *\n"})"},
      {"/api/record/write", R"({"moves": ["b1-b3"], "black": "me", "white": "you"})"},
      {"/api/stop", R"({"client": "fuzz"})"},
  };
  const std::string raw_base =
      "POST /api/position HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
      "\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"moves\": [\"b1-b3\"]}";
  Rng rng(20261123);
  httplib::Client client("127.0.0.1", port_);
  client.set_read_timeout(30, 0);
  for (int i = 0; i < requests; ++i) {
    const auto& [base_path, base_body] = bases[rng.Below(int(std::size(bases)))];
    if (rng.Below(8) == 0) {
      // Raw bytes on a socket: the request line and headers mutated too.
      const std::string request = Mutate(raw_base, rng);
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(uint16_t(port_));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << "request " << i;
      (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
      ::shutdown(fd, SHUT_WR);
      ::close(fd);
      continue;
    }
    const bool mutate_path = rng.Below(10) == 0;
    const std::string path = mutate_path ? Mutate(base_path, rng) : base_path;
    const std::string body = Mutate(base_body, rng);
    const auto result = client.Post(path.c_str(), body, "application/json");
    if (!result && mutate_path) continue;  // a path the client itself cannot send
    ASSERT_TRUE(result) << "request " << i << ": no answer to " << Excerpt(path, 60) << " " << Excerpt(body, 200);
    EXPECT_TRUE(IsApiStatus(result->status)) << "request " << i << ": status " << result->status;
    EXPECT_FALSE(json::parse(result->body, nullptr, false).is_discarded())
        << "request " << i << ": not JSON: " << Excerpt(result->body, 200);
  }
  EXPECT_EQ(Get("/api/info").first, 200);  // still serving
}

TEST_F(ServerTest, RunsGiveMetricsRatingsCheckpointsAndGames) {
  const auto [status, metrics] = Get("/api/runs/0/metrics");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(metrics["run"], "tiny");
  ASSERT_EQ(metrics["events"].size(), 3u);  // the line cut short is skipped
  EXPECT_EQ(metrics["events"][2]["event"], "rating");
  EXPECT_EQ(Get("/api/runs/0/ratings").second["ratings"][0]["name"], "ab:depth=1");
  const json checkpoints = Get("/api/runs/0/checkpoints").second["checkpoints"];
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints[0]["player"], "tiny step 20");
  EXPECT_EQ(Get("/api/runs/0/checkpoints").second["export_player"], "mcts:net=tiny,playouts=8");
  const json games = Get("/api/runs/0/games").second["games"];
  ASSERT_EQ(games.size(), 1u);
  const auto [game_status, game] = Get("/api/runs/0/game?name=" + games[0]["name"].get<std::string>());
  ASSERT_EQ(game_status, 200) << game.dump();
  EXPECT_EQ(game["moves"], json({"d1-b3", "h5-g4"}));
  EXPECT_EQ(game["fens"].size(), 3u);
  // Who plays for the run: a heartbeat from long ago is stale.
  const json who = Get("/api/runs/0/workers").second;
  EXPECT_EQ(who["trainer"]["host"], "n2");
  EXPECT_EQ(who["trainer"]["liveness"], "stale");
  // A damaged heartbeat is named under the run's public name, never the
  // server's folders.
  ASSERT_EQ(who["damaged"].size(), 1u) << who.dump();
  EXPECT_EQ(who["damaged"][0].get<std::string>().rfind("tiny/workers/a1.json: not a heartbeat", 0), 0u) << who.dump();
  const json workers = who["workers"];
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0]["name"], "a0");
  EXPECT_EQ(workers[0]["host"], "n1");
  EXPECT_EQ(workers[0]["games"], 12);
  EXPECT_EQ(workers[0]["liveness"], "stale");
}

TEST_F(ServerTest, ADamagedGameRecordIsNamedInTheError) {
  const std::string sound = *run_ + "/games/main-w0_000000_g0.txt";
  const std::string text = ReadFile(sound);
  for (loa::testing::Damage damage : loa::testing::kEveryDamage) {
    SCOPED_TRACE(loa::testing::DamageName(damage));
    const std::string name = "games/main-w0_000001_g0.txt";
    WriteFileAtomic(*run_ + "/" + name, text);
    loa::testing::DamageFile(*run_ + "/" + name, damage);
    bool listed = false;
    const json games = Get("/api/runs/0/games").second["games"];
    for (const json& game : games) listed = listed || game["name"] == name;
    if (!listed) {  // only files are listed: a folder is not offered
      EXPECT_EQ(damage, loa::testing::Damage::kFolder);
    } else {
      const auto [status, reply] = Get("/api/runs/0/game?name=" + name);
      if (damage == loa::testing::Damage::kGarbled || damage == loa::testing::Damage::kEmptied) {
        EXPECT_EQ(status, 400) << loa::testing::DamageName(damage) << " " << reply.dump();
      }
      if (status != 200) {
        EXPECT_NE(reply.value("error", "").find(name), std::string::npos) << reply.dump();
      }
    }
    std::filesystem::remove_all(*run_ + "/" + name);
  }
}

TEST_F(ServerTest, DamagedRatingsAreNamedNotShown) {
  const std::string path = *run_ + "/eval/ratings.json";
  const std::string sound = ReadFile(path);
  for (const char* text : {"[{\"name\": \"ab:depth=1\", \"el", "{\"name\": 1}", "[1, 2]", ""}) {
    WriteFileAtomic(path, text);
    const json reply = Get("/api/runs/0/ratings").second;
    EXPECT_TRUE(reply["ratings"].empty()) << text;
    EXPECT_EQ(reply.value("damage", "").rfind("tiny/eval/ratings.json: not a list of ratings", 0), 0u)
        << text << ": " << reply.dump();
  }
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  const json folder = Get("/api/runs/0/ratings").second;
  EXPECT_EQ(folder.value("damage", "").rfind("tiny/eval/ratings.json: ", 0), 0u) << folder.dump();
  std::filesystem::remove(path);
  EXPECT_FALSE(Get("/api/runs/0/ratings").second.contains("damage"));  // none yet is no damage
  WriteFileAtomic(path, sound);
  EXPECT_FALSE(Get("/api/runs/0/ratings").second.contains("damage"));
}

TEST(ServerRunsTest, MetricsComeFromAnOffsetAsTheRunGrows) {
  const fs::path dir = fs::temp_directory_path() / ("loaz_serve_grow_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "checkpoints");
  WriteFileAtomic((dir / "config.yaml").string(), "run: {name: grow}\n");
  const std::string metrics = (dir / "metrics.jsonl").string();
  const std::string first = "{\"event\":\"train\",\"step\":1}\n{\"event\":\"train\",\"step\":2}\n";
  WriteFileAtomic(metrics, first + "{\"event\":\"tra");  // a line being written
  ServeOptions options;
  options.players = {"random"};
  options.runs = {dir.string()};
  RunningServer server(options);
  auto get = [&](const std::string& query) {
    return ServerTest::GetFrom(server.port(), "/api/runs/0/metrics" + query);
  };
  const auto [status, all] = get("");
  ASSERT_EQ(status, 200) << all.dump();
  ASSERT_EQ(all["events"].size(), 2u);
  EXPECT_EQ(all["next"], first.size());  // the unfinished line waits
  // The run writes on: the next read has the finished line and the new one only.
  WriteFileAtomic(metrics, first + "{\"event\":\"train\",\"step\":3}\n{\"event\":\"train\",\"step\":4}\n");
  const json more = get("?since=" + std::to_string(all["next"].get<uint64_t>())).second;
  ASSERT_EQ(more["events"].size(), 2u) << more.dump();
  EXPECT_EQ(more["events"][0]["step"], 3);
  EXPECT_EQ(more["reset"], false);
  EXPECT_TRUE(get("?since=" + std::to_string(more["next"].get<uint64_t>())).second["events"].empty());
  // A file replaced by a shorter one is read again from its start.
  WriteFileAtomic(metrics, "{\"event\":\"train\",\"step\":9}\n");
  const json reset = get("?since=" + std::to_string(more["next"].get<uint64_t>())).second;
  EXPECT_EQ(reset["reset"], true);
  ASSERT_EQ(reset["events"].size(), 1u);
  EXPECT_EQ(reset["events"][0]["step"], 9);
  EXPECT_EQ(get("?since=-1").first, 400);
  EXPECT_EQ(get("?file=x").first, 400);
  // A file replaced by a longer one (another inode, as a rewrite makes) is
  // told by its identity, not its length: read again from its start.
  std::string longer;
  for (int step = 10; step < 20; ++step) longer += "{\"event\":\"train\",\"step\":" + std::to_string(step) + "}\n";
  WriteFileAtomic(metrics, longer);
  const json replaced =
      get("?since=" + std::to_string(reset["next"].get<uint64_t>()) + "&file=" + reset["file"].get<std::string>())
          .second;
  EXPECT_EQ(replaced["reset"], true) << replaced.dump();
  ASSERT_EQ(replaced["events"].size(), 10u);
  EXPECT_EQ(replaced["events"][0]["step"], 10);
  // A large file comes in bounded pieces, `more` until the reader caught up,
  // every event once and in order.
  std::string large;
  for (int step = 0; step < 40000; ++step)
    large += "{\"event\":\"train\",\"step\":" + std::to_string(step) + ",\"policy_loss\":1.5}\n";
  WriteFileAtomic(metrics, large);
  uint64_t next = 0;
  std::string file;
  int pieces = 0, expected = 0;
  for (bool more = true; more; ++pieces) {
    const auto [piece_status, piece] = get("?since=" + std::to_string(next) + "&file=" + file);
    ASSERT_EQ(piece_status, 200) << piece.dump();
    ASSERT_LE(piece["next"].get<uint64_t>() - next, loa::run::kJsonLinesChunkBytes);
    for (const json& event : piece["events"]) ASSERT_EQ(event["step"], expected++);
    next = piece["next"].get<uint64_t>();
    file = piece["file"].get<std::string>();
    more = piece["more"].get<bool>();
    EXPECT_EQ(piece["size"].get<uint64_t>(), large.size());
  }
  EXPECT_EQ(expected, 40000);
  EXPECT_GT(pieces, 1);
  EXPECT_EQ(next, large.size());
  // A metrics.jsonl that is not a file: an error that says so, not a crash.
  fs::remove(metrics);
  fs::create_directory(metrics);
  const auto [broken, broken_reply] = get("");
  EXPECT_EQ(broken, 500);
  EXPECT_NE(broken_reply.value("error", "").find("metrics.jsonl cannot be read"), std::string::npos)
      << broken_reply.dump();
  fs::remove(metrics);
  // Checkpoints say whether this server can play them (LibTorch), and the
  // run has no export for it to offer instead.
  const json checkpoints = ServerTest::GetFrom(server.port(), "/api/runs/0/checkpoints").second;
  EXPECT_EQ(checkpoints["playable"], GetTorchBackend() != nullptr);
  EXPECT_TRUE(checkpoints["export_player"].is_null());
  fs::remove_all(dir);
}

TEST_F(ServerTest, RecordsReadAndWrite) {
  const auto [status, written] = Post("/api/record/write", json{{"moves", {"b1-b3"}}, {"black", "you"}}.dump());
  ASSERT_EQ(status, 200);
  const auto [read_status, read] = Post("/api/record/read", json{{"text", written["text"]}}.dump());
  ASSERT_EQ(read_status, 200) << read.dump();
  EXPECT_EQ(read["moves"], json({"b1-b3"}));
  EXPECT_EQ(Post("/api/record/read", json{{"text", "1. d1xb3"}}.dump()).first, 400);
}

TEST(ServerExposureTest, OffLoopbackEveryRequestNeedsTheTokenAndAnAllowedHost) {
  ServeOptions options;
  options.host = "0.0.0.0";
  options.players = {"random"};
  options.allowed_hosts = {"loa.example"};
  RunningServer running(options);
  const std::string token = running.server().token();
  ASSERT_EQ(token.size(), 48u);  // generated, as none was given
  EXPECT_FALSE(running.server().loopback());
  httplib::Client client("127.0.0.1", running.port());
  const auto bare = client.Get("/api/info");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 403);
  EXPECT_NE(bare->body.find("asks for its token"), std::string::npos) << bare->body;
  const auto wrong = client.Get("/api/info?token=" + std::string(48, '0'));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  // The printed URL's token: answered, and a cookie for the page's next requests.
  const auto url = client.Get("/api/info?token=" + token);
  ASSERT_TRUE(url);
  EXPECT_EQ(url->status, 200) << url->body;
  EXPECT_NE(url->get_header_value("Set-Cookie").find("loaz_token=" + token), std::string::npos);
  EXPECT_EQ(client.Get("/api/info", {{"Cookie", "theme=dark; loaz_token=" + token}})->status, 200);
  EXPECT_EQ(client.Get("/api/info", {{"Authorization", "token " + token}})->status, 200);
  // The Host check stays on: a rebound name is refused even with the token.
  const auto rebound = client.Get("/api/info", {{"Authorization", "token " + token}, {"Host", "evil.example"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  EXPECT_NE(rebound->body.find("is not this server's address"), std::string::npos) << rebound->body;
  const std::string allowed = "loa.example:" + std::to_string(running.port());
  EXPECT_EQ(client.Get("/api/info", {{"Authorization", "token " + token}, {"Host", allowed}})->status, 200);
}

TEST(ServerExposureTest, LoopbackIsAnyAddressOfTheLoopbackAndPort80NeedsNoSuffix) {
  for (const char* host : {"127.0.0.1", "127.0.0.2", "127.255.0.9", "localhost", "LOCALHOST", "::1"})
    EXPECT_TRUE(IsLoopbackAddress(host)) << host;
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "128.0.0.1", "example.org", ""})
    EXPECT_FALSE(IsLoopbackAddress(host)) << host;
  ServeOptions options;
  options.host = "127.0.0.2";
  const Exposure exposure(options);
  EXPECT_TRUE(exposure.token().empty());
  httplib::Request request;
  request.headers.emplace("Host", "127.0.0.2:8080");
  EXPECT_EQ(exposure.Refusal(request, 8080), "");
  httplib::Request port80;
  port80.headers.emplace("Host", "localhost");
  EXPECT_EQ(exposure.Refusal(port80, 80), "");  // a browser leaves out the port 80
  EXPECT_NE(exposure.Refusal(port80, 8080), "");
  options.allowed_hosts = {"bad/name"};
  EXPECT_THROW(Exposure{options}, Error);
}

TEST_F(ServerTest, ALinkOutOfARunIsNeitherListedNorServed) {
  const fs::path outside = fs::path(*run_).parent_path() / "outside.txt";
  WriteFileAtomic(outside.string(), "secret-words-of-another-file\n");
  const fs::path link = fs::path(*run_) / "games" / "link_000001.txt";
  fs::create_symlink(outside, link);
  const json games = Get("/api/runs/0/games").second["games"];
  for (const json& game : games) EXPECT_EQ(game["name"].get<std::string>().find("link_"), std::string::npos);
  const auto [status, reply] = Get("/api/runs/0/game?name=games/link_000001.txt");
  EXPECT_NE(status, 200);
  EXPECT_EQ(reply.dump().find("secret"), std::string::npos) << reply.dump();
  // A run file that is a link out of the run: its ratings are refused, named, not read.
  const fs::path ratings = fs::path(*run_) / "eval" / "ratings.json";
  fs::rename(ratings, ratings.string() + ".kept");
  fs::create_symlink(outside, ratings);
  const auto [ratings_status, ratings_reply] = Get("/api/runs/0/ratings");
  EXPECT_EQ(ratings_status, 403);
  EXPECT_NE(ratings_reply.dump().find("a link out of the run"), std::string::npos) << ratings_reply.dump();
  EXPECT_EQ(ratings_reply.dump().find("secret"), std::string::npos);
  fs::remove(ratings);
  fs::rename(ratings.string() + ".kept", ratings);
  fs::remove(link);
}

TEST(ServerOptionsTest, BadOptionsFailAtTheStart) {
  ServeOptions options;
  options.web_dir = LOAZ_WEB_DIR;
  options.chart_js = LOAZ_CHART_JS;
  options.players = {"ab:depth=0"};
  EXPECT_THROW(WebServer{options}, Error);
  options.players = {};
  options.runs = {"/nonexistent/run"};
  EXPECT_THROW(WebServer{options}, Error);
}

}  // namespace
}  // namespace loa::serve
