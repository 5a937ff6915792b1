#pragma once
// A player: anything that chooses a move for a game (a search, a net, an
// external engine, a person). Any two players can meet in a match.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/game.h"

namespace loa {

class Evaluator;
class PlayerSpec;

// The clock of the side to move, as GTP's time_settings and time_left, or
// UCI's go and xboard's level and time give it; all zero means untimed (the
// player uses its own limits).
struct Clock {
  double main_seconds = 0;       // time left in the main period
  double byoyomi_seconds = 0;    // time per byo-yomi period
  int byoyomi_stones = 0;        // moves per byo-yomi period (0: none)
  double increment_seconds = 0;  // added after each move (UCI's winc, xboard's INC)
  int moves_to_go = 0;           // moves to the next time control (0: not given)
  double opponent_seconds = 0;   // the opponent's time left (0: not given), for UCI's and xboard's engines
  bool timed() const { return main_seconds > 0 || byoyomi_seconds > 0 || increment_seconds > 0; }
};

// What a player found while choosing its last move, for people watching
// (`loaz serve`). Values are for the side that moved.
struct MoveAnalysis {
  // One candidate move of a search.
  struct Candidate {
    Move move;
    uint32_t visits = 0;
    float prior = 0, q = 0, d = 0;  // q: win - loss in [-1, 1]; d: draw probability
  };
  bool available = false;      // false: the player keeps none
  double seconds = 0;          // time spent
  int64_t nodes = 0;           // playouts (search) or nodes (alpha-beta)
  int64_t reused = 0;          // search: root visits kept from the tree of the last search
  double value = 0;            // search: win - loss of the root, in [-1, 1]
  double draw = 0;             // search: draw probability of the root
  int depth = 0, score = 0;    // alpha-beta: the depth finished and its score
  std::vector<Candidate> top;  // search: the moves, most visited first
  std::vector<Move> pv;        // the principal variation, the move first
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

  // Returns whether it plays on the board of `size` (docs/RULES.md, "Board
  // sizes"): the rules' players (random, greedy, ab) on any, a net's player
  // on its net's; one that says nothing, on 8 x 8 only.
  virtual bool PlaysBoardSize(int size) const { return size == kBoardSize; }

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

  // Returns what the last ChooseMove or Analyse found (available false if
  // nothing).
  virtual MoveAnalysis LastAnalysis() const { return {}; }

  // Returns what a ChooseMove or Analyse running on another thread has found
  // so far: a search's tree now, alpha-beta's last finished depth. The one
  // member besides Stop that another thread may call; available false for
  // players that cannot tell.
  virtual MoveAnalysis CurrentAnalysis() { return {}; }

  // Searches the game's position for people watching rather than to move
  // at once: until Stop, `seconds` or `nodes` (0: no bound of that kind;
  // at least one must be given), and past the point where play would stop
  // because the move is settled. Returns the best move found; LastAnalysis
  // says the rest. A player that cannot analyse chooses a move.
  virtual Move Analyse(const Game& game, double seconds, int64_t nodes) { return ChooseMove(game, Clock()); }

  // Chooses a move as ChooseMove would, within these bounds in place of the
  // spec's own limit (0: no bound of that kind; at least one given): what
  // a server does that keeps one player for requests of any limit. A
  // player without such bounds chooses by its spec.
  virtual Move ChooseMoveWithin(const Game& game, double seconds, int64_t nodes) { return ChooseMove(game, Clock()); }

  // Asks a ChooseMove running on another thread to return soon with the
  // best move so far; a no-op for players that cannot be stopped.
  virtual void Stop() {}
};

// Builds a player from a spec string such as "random:seed=3", "ab:depth=4",
// "rollout:sims=1000", "gtp:cmd=./other-engine" (see README, Players); throws
// ParseError naming the part of the spec it cannot read.
std::unique_ptr<Player> MakePlayer(const std::string& spec);

// Reads spec as MakePlayer would and checks each key and value, without
// building the player: no engine started, no net loaded (a net named must
// be a file). Throws as MakePlayer does.
void CheckPlayerSpec(const std::string& spec);

// Checks each of specs, the value of a config's `key`: by CheckPlayerSpec,
// or with `build` by building each player once (its net loaded, its engine
// started and stopped), so that a bad spec fails when a run starts, not
// hours later. Throws Error naming the key and the spec.
void CheckPlayerSpecs(const std::vector<std::string>& specs, const std::string& key, bool build);

// Returns the evaluator that an mcts spec loads (from its net= or
// evaluator= and the evaluator's keys), for many players of that spec to
// share: the net loaded once, one NN cache; thread-safe. Null for the other
// kinds. Throws as MakePlayer does.
std::shared_ptr<Evaluator> MakeSharedEvaluator(const std::string& spec);
std::shared_ptr<Evaluator> MakeSharedEvaluator(const PlayerSpec& spec);

// MakePlayer, but an mcts spec searches with `shared` (MakeSharedEvaluator
// of a spec that differs from this one at most in its limits) instead of
// loading its own. Other kinds, or a null `shared`, as MakePlayer.
std::unique_ptr<Player> MakePlayer(const std::string& spec, std::shared_ptr<Evaluator> shared);
// The same from a spec already parsed (a request's, parsed once).
std::unique_ptr<Player> MakePlayer(const PlayerSpec& spec, std::shared_ptr<Evaluator> shared);

}  // namespace loa
