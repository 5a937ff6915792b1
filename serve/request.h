#pragma once
// What the handlers of `loaz serve` share (docs/SERVE.md): the bounds of a
// request, the checked forms of its parts, and the JSON of the replies.

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/game.h"
#include "mcts/evaluator.h"
#include "play/player.h"
#include "play/player_kinds.h"
#include "play/spec.h"

namespace loa::serve {

using nlohmann::json;

// The largest request body read; a game of a thousand moves is 10 KB.
inline constexpr size_t kMaxBodyBytes = 64 * 1024;
// The time a request body has to arrive once its headers have (a page's
// arrives in milliseconds): a body sent a byte at a time is cut off.
inline constexpr auto kBodySeconds = std::chrono::seconds(2);
// The HTTP workers: enough that dozens of slow or idle connections leave
// most of them free.
inline constexpr int kHttpWorkers = 128;
// The most moves a request's game may hold.
inline constexpr size_t kMaxMoves = 2000;
// The newest records of each kind a run's game list shows.
inline constexpr size_t kGamesListed = 30;
// The bounds of a request's limits.
inline constexpr double kMinSeconds = 0.01, kMaxSeconds = 60;
// A search's tree takes some 1.4 KB a playout: 100,000 playouts are about
// 140 MB, times the searches running at once.
inline constexpr int64_t kMaxPlayouts = 100000;
// How often a streamed search sends its state.
inline constexpr auto kStreamPeriod = std::chrono::milliseconds(200);
// The solver's table for the page's Solve (one proof at a time).
inline constexpr int64_t kSolverMegabytes = 256;
// Players of run checkpoints whose evaluators are kept (the last asked for).
inline constexpr size_t kCheckpointEvaluators = 4;
// The longest player name a request may give.
inline constexpr size_t kMaxPlayerName = 200;
// Metrics reads at once (each holds at most run::kJsonLinesChunkBytes of
// the file and its events); more wait their turn.
inline constexpr int kMaxMetricsReads = 2;

// A request the server refuses: status (400 unless said) with
// {"error": message}.
struct BadRequest {
  std::string message;
  int status = 400;
};

// A player the page may choose: its public name, its spec, and the
// evaluator that every search of it shares (null for kinds without one).
struct NamedPlayer {
  std::string name;
  PlayerSpec spec;
  std::shared_ptr<Evaluator> evaluator;
  std::vector<int> boards;  // the board sizes it plays (Player::PlaysBoardSize)
};

// A search request, checked: the game, the player and the limit, the tab.
struct SearchRequest {
  Game game;
  std::string client;
  PlayerSpec spec;      // the player's, with the request's limit
  std::string name;     // its public name (PublicName), as replies show it
  PlayerLimits limits;  // its kind's (the kind table's row)
  std::shared_ptr<Evaluator> evaluator;
  bool analyse = false;  // search without moving (Player::Analyse)
  double seconds = 0;    // the request's limit (0: none given)
  int64_t playouts = 0;

  // Whether the search's bounds are the request's rather than its player's
  // (Player::Analyse, Player::ChooseMoveWithin): an analysis, or a move of
  // the searches that take bounds with a limit given.
  bool OwnBounds() const;
};

// A run directory given on the command line, named by its folder.
struct RunView {
  std::string name, dir;
};

// Returns whether path, its links followed, lies inside the run's
// directory: a link out of a run is never served (nor listed).
bool InsideRun(const RunView& run, const std::string& path);
// Throws BadRequest (403) naming the run's file when path leads out of it.
void CheckInsideRun(const RunView& run, const std::string& path, const std::string& public_name);

// Returns the request's body as a JSON object; BadRequest otherwise.
json ParseBody(const httplib::Request& request);
// Returns body[key] as a string, or fallback when absent; throws naming the
// key when it is of another type.
std::string StringField(const json& body, const char* key, const std::string& fallback = "");
// Returns body["seconds"] checked to lie in [kMinSeconds, kMaxSeconds], or
// fallback when absent.
double SecondsOf(const json& body, double fallback);
// Returns the rules a request names ("rules": {...}), checked.
Rules RulesOf(const json& body);
// Returns a player's name as a record's tag value (BadRequest when it holds
// what a tag value cannot).
std::string TagValueOf(const std::string& name, const char* key);
// Returns the text of a reply: invalid UTF-8 replaced, never thrown.
std::string JsonText(const json& reply);
// Builds the game a request describes: "fen", "moves", "rules".
Game GameOf(const json& body);
// Returns the position reply of a game: its position, legal moves, result.
json StatusOf(const Game& game);
// Returns the hits of the evaluator's NN cache, 0 when it has none.
uint64_t CacheHits(const Evaluator* evaluator);
// Returns the "analysis" of a reply.
json AnalysisOf(const MoveAnalysis& a, const std::string& name, double wall_seconds);
// A handler that returns its reply, and one that writes it itself (a
// streamed search).
using JsonHandler = std::function<json(const httplib::Request&)>;
using RawHandler = std::function<void(const httplib::Request&, httplib::Response&)>;
// Returns the HTTP handler of a JSON endpoint: BadRequest and loa::Error
// become {"error": ...} with their status (400 for an Error), every reply
// JSON and never cached.
httplib::Server::Handler Answer(JsonHandler handler);
httplib::Server::Handler Answer(RawHandler handler);
// Returns a POST handler that reads the body through a bound (kMaxBodyBytes
// in kBodySeconds: cpp-httplib's own bound covers a Content-Length body but
// not a chunked one) and then answers with `answer`; 413, 408 or 400 with
// an error line otherwise.
httplib::Server::HandlerWithContentReader WithBoundedBody(httplib::Server::Handler answer);
// Returns a handler that serves the file at path as `type` (404 when it
// cannot be read).
httplib::Server::Handler StaticFile(const std::string& path, const char* type);
// Answers what no route answered (a bad method, path, size or request line)
// with one error line in JSON.
void AnswerUnrouted(const httplib::Request& request, httplib::Response& response);

// Returns the file names in dir matching pattern, newest first, at most n.
std::vector<std::string> NewestFiles(const std::string& dir, const std::regex& pattern, size_t n);

}  // namespace loa::serve
