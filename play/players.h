#pragma once
// The built-in players, one factory function per spec kind. MakePlayer
// (player_factory.cpp) dispatches on the kind; each function checks the keys
// its kind takes and throws ParseError naming the spec and the key.

#include <memory>

#include "play/player.h"
#include "play/spec.h"

namespace loa {

// "random[:seed=S]": a uniformly random legal move.
std::unique_ptr<Player> MakeRandomPlayer(const PlayerSpec& spec);

// "greedy[:seed=S]": the move with the best one-ply evaluation (an immediate
// win first); ties are broken at random.
std::unique_ptr<Player> MakeGreedyPlayer(const PlayerSpec& spec);

// "ab:depth=D", "ab:nodes=N", "ab:time=SECONDS" (any combination; time=1
// when none is given), "hash=MB": the alpha-beta baseline.
std::unique_ptr<Player> MakeAlphaBetaPlayer(const PlayerSpec& spec);

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

}  // namespace loa
