#pragma once
// The text protocol of `loaz gtp`: GTP version 2 framing and standard
// commands, with LOA commands (README, Text protocol).

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/game.h"
#include "play/player.h"

namespace loa {

// An engine that answers protocol commands for one game at a time, asking
// its player for moves. Not thread-safe.
class GtpEngine {
 public:
  // An engine playing with `player` under `rules`, from their start position.
  GtpEngine(std::unique_ptr<Player> player, const Rules& rules = Rules());

  // Returns the reply to one input line, ending with the blank line that
  // closes a reply, or "" for a line that holds no command (empty, comment).
  // A command that fails leaves the game as it was.
  std::string Handle(const std::string& line);

  // Makes genmove write the player's LastMoveInfo to log (nullptr: off).
  void set_log(std::ostream* log) { log_ = log; }

  // Bounds every loa_solve, besides its seconds, to `nodes` positions (0:
  // no bound) and its table to `memory_mb` (256 unless set): the fuzz
  // target's, so that no input runs for long.
  void set_solve_bounds(int64_t nodes, int64_t memory_mb) {
    solve_nodes_ = nodes;
    solve_memory_mb_ = memory_mb;
  }

  // Returns whether `quit` was received.
  bool quit() const { return quit_; }

  // Reads lines from in and writes replies to out, flushing each, until
  // `quit` or the end of the input.
  void Run(std::istream& in, std::ostream& out);

  const Game& game() const { return game_; }

 private:
  std::string Execute(const std::string& command, const std::string& args);
  std::string ExecuteGameCommand(const std::string& command, const std::string& args);
  std::string SetClock(const std::string& command, const std::vector<std::string>& words);
  std::string Genmove(const std::string& args);
  std::string Play(const std::string& args);
  std::string SetRules(const std::string& args);
  std::string LoadGame(const std::string& args);
  // loa_solve [SECONDS]: the position proven by df-pn (docs/SOLVER.md), 10 s unless told.
  std::string Solve(const std::vector<std::string>& words) const;
  std::string ShowBoard() const;
  void NewGame(const Rules& rules, const Position& start);

  std::unique_ptr<Player> player_;
  Game game_;
  Clock clocks_[2];
  bool quit_ = false;
  std::ostream* log_ = nullptr;
  int64_t solve_nodes_ = 0;
  int64_t solve_memory_mb_ = 256;
};

}  // namespace loa
