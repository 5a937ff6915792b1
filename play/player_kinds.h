#pragma once
// The built-in players, one factory function per spec kind. MakePlayer
// (player_factory.cpp) dispatches on the kind; each function checks the keys
// its kind takes and throws ParseError naming the spec and the key.

#include <memory>
#include <string>
#include <vector>

#include "alphabeta/search.h"
#include "alphabeta/weights_file.h"
#include "core/error.h"
#include "core/param_visitor.h"
#include "play/player.h"
#include "play/spec.h"

namespace loa {

// "random[:seed=S]": a uniformly random legal move.
std::unique_ptr<Player> MakeRandomPlayer(const PlayerSpec& spec);

// "greedy[:seed=S]": the move with the best one-ply evaluation (an immediate
// win first); ties are broken at random.
std::unique_ptr<Player> MakeGreedyPlayer(const PlayerSpec& spec);

// "ab:depth=D", "ab:nodes=N", "ab:time=SECONDS" (any combination; time=1
// when none is given), "hash=MB", "threads=T", "version=V", "weights=FILE"
// and a switch per search technique: the alpha-beta baseline.
std::unique_ptr<Player> MakeAlphaBetaPlayer(const PlayerSpec& spec);

// What an `ab` spec asks for: the search's limits, options and weights
// (for `loaz bench ab`, which searches without a Player).
struct AlphaBetaSetup {
  ab::SearchLimits limits;
  ab::SearchOptions options;
  ab::Weights weights;
};
AlphaBetaSetup ReadAlphaBetaSpec(const PlayerSpec& spec);

// The baseline version an `ab` spec plays (its version=, else the latest);
// 0 for a spec of another kind or one that does not parse.
int AlphaBetaVersion(const std::string& spec);

// "rollout:sims=N[,rollouts=R][,seed=S]": the PUCT search with uniform priors
// and values from random playouts, proven wins and losses backed up
// (MCTS-Solver); any search parameter may follow.
std::unique_ptr<Player> MakeRolloutPlayer(const PlayerSpec& spec);

// Seconds an external engine may take to answer a command (but a timed
// genmove, which gets its clock plus a grace).
inline constexpr double kDefaultEngineTimeout = 30;

// "gtp:[timeout=SECONDS,]cmd=COMMAND": an external engine that speaks the
// text protocol of `loaz gtp`, started with /bin/sh -c COMMAND in a process
// group of its own; the rest of the spec is the command, commas and all. An
// engine that does not answer within its timeout, or answers more than
// 1 MiB, is killed with its whole process group (PlayerTimeout, Error);
// so is every engine when SIGINT or SIGTERM ends this process.
std::unique_ptr<Player> MakeGtpPlayer(const PlayerSpec& spec);

// "uci:[timeout=SECONDS,][movetime=SECONDS,]cmd=COMMAND": an external
// engine that speaks UCI for the variant linesofaction (cutechess's), run
// as gtp: is. It is told the game as `position fen FEN moves ...` and the
// clock as `go wtime btime winc binc` (an untimed game: `go movetime`);
// its bestmove must come within its time left and a grace.
std::unique_ptr<Player> MakeUciPlayer(const PlayerSpec& spec);

// The keys each factory reads, from the declarations it reads them with:
// a spec accepts exactly these (random and greedy share theirs).
std::vector<ParamInfo> RandomPlayerKeys();
std::vector<ParamInfo> AlphaBetaPlayerKeys();
std::vector<ParamInfo> RolloutPlayerKeys();
std::vector<ParamInfo> GtpPlayerKeys();
std::vector<ParamInfo> UciPlayerKeys();

// Each kind's spec read and checked as its factory reads it, without the
// player (no engine started, no net loaded; CheckPlayerSpec).
void CheckRandomSpec(const PlayerSpec& spec);
void CheckAlphaBetaSpec(const PlayerSpec& spec);
void CheckRolloutSpec(const PlayerSpec& spec);
void CheckGtpSpec(const PlayerSpec& spec);
void CheckUciSpec(const PlayerSpec& spec);

// Returns the keys of spec read into a Keys (Keys::Visit declares them):
// exactly those, each in its range; throws ParseError naming the key.
// And the keys that Keys::Visit declares, with Keys' defaults: how each
// factory's key struct is listed.
template <typename Keys>
Keys ReadKeys(const PlayerSpec& spec) {
  Keys keys;
  spec.ReadExactly([&](ParamVisitor& v) { keys.Visit(v); });
  return keys;
}

// ReadKeys for an external engine's kind (gtp, uci): its `cmd` required.
template <typename Keys>
Keys ReadEngineKeys(const PlayerSpec& spec, const char* kind) {
  const Keys keys = ReadKeys<Keys>(spec);
  if (keys.command.empty()) throw ParseError("player '" + Excerpt(spec.text()) + "': " + kind + " needs cmd=COMMAND");
  return keys;
}

template <typename Keys>
std::vector<ParamInfo> ListKeys() {
  Keys keys;
  ParamLister lister;
  keys.Visit(lister);
  return lister.params();
}

// What limits a kind's search, from its row of the kind table: what
// callers (serve/ above all) ask instead of testing a kind's name.
struct PlayerLimits {
  bool time = false;                // takes time=SECONDS a move
  const char* count_key = nullptr;  // the count a request may set ("playouts", "sims"), or null
  std::vector<std::string> keys;    // every key that limits its search (time, depth, nodes, ...)
  bool tree = false;                // a tree search: its memory grows with its count, so callers bound it
};

// A player kind as `loaz config` lists it.
struct PlayerKind {
  std::string kind;   // "ab"
  std::string usage;  // one line: what it is
  std::vector<ParamInfo> keys;
  PlayerLimits limits;
};

// Returns the limits of spec's kind. Throws ParseError for an unknown kind.
const PlayerLimits& LimitsOf(const PlayerSpec& spec);

// Returns spec's text without the keys that limit its search: what players
// of one kind, net and settings but of any limit have alike.
std::string SpecWithoutLimit(const PlayerSpec& spec);

// Returns spec with its search limited to `count` (its count key) when
// count > 0 and the kind has one, else to `seconds` a move when the kind
// takes a time (1 s when seconds <= 0), else to 1,000 of its count; a kind
// without limits, or neither given, keeps its own.
PlayerSpec SpecWithLimit(const PlayerSpec& spec, double seconds, int64_t count);

// Every kind MakePlayer knows, in its order, with its keys.
std::vector<PlayerKind> DescribePlayerKinds();

}  // namespace loa
