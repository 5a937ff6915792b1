#pragma once
// A player: anything that chooses a move for a game (a search, a net, an
// external engine, a person). Any two players can meet in a match.

#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/game.h"

namespace loa {

// The clock of the side to move, as GTP's time_settings and time_left give
// it; all zero means untimed (the player uses its own limits).
struct Clock {
  double main_seconds = 0;     // time left in the main period
  double byoyomi_seconds = 0;  // time per byo-yomi period
  int byoyomi_stones = 0;      // moves per byo-yomi period (0: none)
  bool timed() const { return main_seconds > 0 || byoyomi_seconds > 0; }
};

// A player that did not move within its time: a loss for it in a match
// (Game::Forfeit), an error elsewhere.
class PlayerTimeout : public Error {
 public:
  using Error::Error;
};

// A player. Not thread-safe: one game at a time; make one per thread.
class Player {
 public:
  virtual ~Player() = default;

  // Returns the player's name as its spec gave it, e.g. "ab:depth=3".
  virtual std::string name() const = 0;

  // Forgets what it learnt of the last game (trees, tables, clocks).
  virtual void NewGame() {}

  // Reseeds the player's random choices. A match calls it before each game
  // with a seed made from its own seed and the game's number, so that a game
  // does not depend on the games the same player object played before.
  // Players without randomness ignore it.
  virtual void SetSeed(uint64_t seed) {}

  // Returns a legal move for the side to move; the game must not be over.
  virtual Move ChooseMove(const Game& game, const Clock& clock) = 0;

  // Returns one line about the last ChooseMove (search depth, score, nodes,
  // speed) for logs, or "" for a player that keeps none.
  virtual std::string LastMoveInfo() const { return ""; }
};

// Builds a player from a spec string such as "random:seed=3", "ab:depth=4",
// "rollout:sims=1000", "gtp:cmd=./other-engine" (see README, Players); throws
// ParseError naming the part of the spec it cannot read.
std::unique_ptr<Player> MakePlayer(const std::string& spec);

}  // namespace loa
