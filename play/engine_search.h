#pragma once
// One search at a time on a thread of its own, for the text protocols of
// other programs (`loaz uci`, `loaz xboard`): it runs a player on a copy of
// the game within its limits, reports what it has found every second, and
// hands its move to a callback; Stop ends it early. So the protocol's own
// thread keeps reading commands (stop, isready, ping, quit) while it thinks.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/game.h"
#include "play/player.h"

namespace loa {

// What bounds a search: a clock, or a time or a node count for this move.
struct MoveLimits {
  Clock clock;            // used when neither movetime nor nodes is set
  double movetime = 0;    // seconds for this move (0: none)
  int64_t nodes = 0;      // nodes for this move (0: none)
  bool infinite = false;  // until Stop (UCI's `go infinite`)
};

class EngineSearch {
 public:
  // Called from the search's threads: `report` with what it has found,
  // every second while it runs; `done` once, with the move (null when the
  // game is over) and the last analysis; `note` with a failure or a remark,
  // in words.
  struct Callbacks {
    std::function<void(const MoveAnalysis&)> report;
    std::function<void(Move, const MoveAnalysis&)> done;
    std::function<void(const std::string&)> note;
  };

  EngineSearch() = default;
  ~EngineSearch() { Stop(); }
  EngineSearch(const EngineSearch&) = delete;
  EngineSearch& operator=(const EngineSearch&) = delete;

  // Starts a search of `game` by `player`, which must outlive it; one
  // running is stopped first. A search stopped or failed before it found a
  // move still answers a legal one; an infinite one answers only at Stop.
  void Start(Player& player, const Game& game, const MoveLimits& limits, Callbacks callbacks);

  // Stops the running search, if any, and returns once its `done` has been
  // called and its threads joined.
  void Stop();

  // Returns whether a search has started and not yet called `done`.
  bool running();

 private:
  Player* player_ = nullptr;
  std::thread search_, reporter_;
  std::mutex mutex_;
  std::condition_variable finished_;
  bool searching_ = false;
  std::atomic<bool> stop_requested_{false};
};

// The player of a protocol engine: a spec (README, Players) with the
// protocol's thread count and net laid over it, made when first wanted and
// again after a change.
class EnginePlayer {
 public:
  explicit EnginePlayer(std::string spec) : spec_(std::move(spec)) {}

  // Returns the player for the options as they are now; throws naming the
  // spec when it makes none (the player before, if any, stays).
  Player& Get();
  // Sets the spec; one that makes no player throws, and the one before stays.
  void SetSpec(const std::string& spec);
  void SetThreads(int threads) { threads_ = threads; }  // 0: the spec's
  void SetNet(const std::string& net) { net_ = net; }   // "": the spec's
  // Tells the player, if made, that a new game begins.
  void NewGame();
  const std::string& spec() const { return spec_; }
  // The threads the spec gives (1 where it names none).
  int SpecThreads() const;
  // The player made so far, or null: for Stop from another thread.
  Player* made() const { return player_.get(); }

 private:
  std::string Spec() const;

  std::string spec_, net_;
  int threads_ = 0;
  std::unique_ptr<Player> player_;
  std::string made_from_;
};

// A search's score in centipawns for the side that moved: a net's value by
// lc0's map of [-1, 1], an alpha-beta's own score; with a proven result,
// `mate_moves` set to the moves to it (negative when it loses), else 0.
int ScoreCentipawns(const MoveAnalysis& a, int* mate_moves);

// Returns the move a player chooses within `limits`, a legal one even when
// it fails or is stopped before it finds one (null when the game is over),
// calling `note` with a failure: the one search of EngineSearch, for a
// caller that waits for it.
Move SearchWithin(Player& player, const Game& game, const MoveLimits& limits,
                  const std::function<void(const std::string&)>& note);

}  // namespace loa
