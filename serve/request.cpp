#include "serve/request.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "core/file_util.h"
#include "core/formats.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "mcts/cached_evaluator.h"
#include "play/player_kinds.h"
#include "play/spec.h"

namespace loa::serve {

namespace fs = std::filesystem;

json ParseBody(const httplib::Request& request) {
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) throw BadRequest{"the body is not a JSON object"};
  return body;
}

// Returns body[key] as a string, or fallback when absent; throws naming the
// key when it is of another type.
std::string StringField(const json& body, const char* key, const std::string& fallback) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw BadRequest{std::string("'") + key + "' must be a string"};
  return it->get<std::string>();
}

double SecondsOf(const json& body, double fallback) {
  if (!body.contains("seconds")) return fallback;
  if (!body["seconds"].is_number()) throw BadRequest{"'seconds' must be a number"};
  const double seconds = body["seconds"].get<double>();
  if (!(seconds >= kMinSeconds && seconds <= kMaxSeconds))
    throw BadRequest{"'seconds' must lie in [" + FormatDouble(kMinSeconds) + ", " + FormatDouble(kMaxSeconds) + "]"};
  return seconds;
}

Rules RulesOf(const json& body) {
  const auto it = body.find("rules");
  Rules rules;
  if (it == body.end() || it->is_null()) return rules;
  if (!it->is_object())
    throw BadRequest{"'rules' must be an object: {\"simultaneous\": \"draw\", \"start\": \"standard\"}"};
  // The rules' own declaration reads them (Rules::Visit): each value whole,
  // checked against its closed set or range; nothing is spliced into text.
  std::map<std::string, std::string> values;
  for (const auto& item : it->items()) {
    if (item.value().is_string())
      values[item.key()] = item.value().get<std::string>();
    else if (item.value().is_number_integer())
      values[item.key()] = std::to_string(item.value().get<int64_t>());
    else
      throw BadRequest{"rules '" + Excerpt(item.key(), 40) + "' must be a string or an integer"};
  }
  MapParamReader reader(values, "rules");
  try {
    rules.Visit(reader);
  } catch (const Error& e) {
    throw BadRequest{e.what()};
  }
  if (const std::vector<std::string> unknown = reader.UnknownKeys(); !unknown.empty())
    throw BadRequest{"unknown rules option '" + Excerpt(unknown.front(), 40) +
                     "' (simultaneous, start, size, max_plies, no_moves, repetition, repetition_of, no_capture_plies)"};
  return rules;
}

bool SearchRequest::OwnBounds() const {
  if (analyse) return true;
  return limits.time && (seconds > 0 || playouts > 0);
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
  Rules rules = RulesOf(body);
  Position start = rules.StartPosition();
  const std::string fen = StringField(body, "fen");
  if (!fen.empty()) {
    try {
      start = ReadPosition(fen);
    } catch (const Error& e) {
      throw BadRequest{e.what()};
    }
    // The string's ranks say the board's size, unless the rules name another.
    const auto named = body.find("rules");
    if (named == body.end() || !named->is_object() || !named->contains("size")) rules.size = start.size();
    if (start.size() != rules.size)
      throw BadRequest{"'fen' is a " + std::to_string(start.size()) + "x" + std::to_string(start.size()) +
                       " position but the rules say size " + std::to_string(rules.size)};
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

namespace {

// Answers with `reply` as JSON, never cached.
void SetJson(httplib::Response& response, const json& reply) {
  response.set_header("Cache-Control", "no-store");
  response.set_content(JsonText(reply), "application/json");
}

}  // namespace

httplib::Server::Handler Answer(JsonHandler handler) {
  return [handler = std::move(handler)](const httplib::Request& request, httplib::Response& response) {
    json reply;
    try {
      reply = handler(request);
      response.status = 200;
    } catch (const BadRequest& e) {
      reply = {{"error", e.message}};
      response.status = e.status;
    } catch (const Error& e) {
      reply = {{"error", e.what()}};
      response.status = 400;
    }
    SetJson(response, reply);
  };
}

httplib::Server::Handler Answer(RawHandler handler) {
  return [handler = std::move(handler)](const httplib::Request& request, httplib::Response& response) {
    try {
      handler(request, response);
    } catch (const BadRequest& e) {
      response.status = e.status;
      SetJson(response, {{"error", e.message}});
    } catch (const Error& e) {
      response.status = 400;
      SetJson(response, {{"error", e.what()}});
    }
  };
}

httplib::Server::HandlerWithContentReader WithBoundedBody(httplib::Server::Handler answer) {
  return [answer = std::move(answer)](const httplib::Request& request, httplib::Response& response,
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
    const auto refuse = [&](int status, const char* message, bool close) {
      response.status = status;
      if (close) response.set_header("Connection", "close");
      response.set_content(JsonText({{"error", message}}), "application/json");
    };
    if (too_slow) return refuse(408, "the request body came too slowly (it has 2 s)", true);
    if (too_large) return refuse(413, "the request body is larger than 64 KiB", true);
    if (!read) return refuse(400, "the request body could not be read", false);
    httplib::Request bounded = request;
    bounded.body = std::move(body);
    answer(bounded, response);
  };
}

httplib::Server::Handler StaticFile(const std::string& path, const char* type) {
  return [path, type](const httplib::Request&, httplib::Response& response) {
    try {
      response.set_content(ReadFile(path, kMaxTextBytes), type);
    } catch (const Error& e) {
      response.status = 404;
      response.set_content(JsonText({{"error", e.what()}}), "application/json");
    }
  };
}

void AnswerUnrouted(const httplib::Request& request, httplib::Response& response) {
  if (!response.body.empty()) return;
  std::string message;
  if (response.status == 413) {
    message = "the request body is larger than 64 KiB";
  } else if (response.status == 414) {
    message = "the URL is longer than the server reads (8 KiB)";
  } else if (request.method != "GET" && request.method != "POST" && !request.method.empty()) {
    // Whatever the path: no page or endpoint answers another method.
    response.status = 405;
    response.set_header("Allow", "GET, POST");
    message = "method '" + Excerpt(request.method, 20) + "' is not served (GET and POST are)";
  } else if (response.status == 404) {
    message = "no such page or endpoint: " + Excerpt(request.path, 80);
  } else {
    message = "the request could not be read (a malformed request line, or a header over 8 KiB)";
  }
  response.set_content(JsonText({{"error", message}}), "application/json");
}

bool InsideRun(const RunView& run, const std::string& path) {
  std::error_code root_error, target_error;
  const fs::path root = fs::weakly_canonical(run.dir, root_error), target = fs::weakly_canonical(path, target_error);
  if (root_error || target_error) return false;
  return std::mismatch(root.begin(), root.end(), target.begin(), target.end()).first == root.end();
}

void CheckInsideRun(const RunView& run, const std::string& path, const std::string& public_name) {
  if (!InsideRun(run, path))
    throw BadRequest{"run " + run.name + ": " + public_name + " is a link out of the run; it is not served", 403};
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

}  // namespace loa::serve
