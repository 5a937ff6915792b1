#pragma once
// `loaz xboard`: the Chess Engine Communication Protocol, version 2, as
// cutechess and XBoard speak it for the variant `linesofaction`
// (docs/ENGINE.md, "xboard as cutechess and XBoard speak it"): xboard, protover, new, variant, force,
// go, playother, usermove, setboard, level, st, time, otim, ?, ping,
// result, undo, remove, option, cores, quit. The search runs on a thread of
// its own (EngineSearch), so that `?`, ping and the clock are answered while
// it thinks. Moves are written FROMTO ("b1d3", a pass "@@@@"), positions as
// cutechess's FEN (core/formats.h); results in the chess manner, "1-0"
// a White win.

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>
#include <vector>

#include "core/game.h"
#include "play/engine_search.h"

namespace loa {

// Returns the thinking line of xboard's `post` for what a search found:
// depth, score in centipawns (a proven result as 100000 + moves to it),
// time in centiseconds, nodes and the principal variation; "" when the
// player keeps none.
std::string XboardThinking(const MoveAnalysis& a);

class XboardEngine {
 public:
  // An engine whose player is made from `player_spec` (README, Players)
  // until `option Player=SPEC` names another. With `white_first` the side
  // that moves first is the one the GUI calls White, as XBoard must have it
  // (it starts every game of a variant it does not know with White): FENs
  // read and written with their colours swapped, results named so.
  explicit XboardEngine(std::string player_spec, bool white_first = false);
  ~XboardEngine();
  XboardEngine(const XboardEngine&) = delete;
  XboardEngine& operator=(const XboardEngine&) = delete;

  // Reads commands from in, one a line, and writes to out (flushed a line at
  // a time) until `quit` or the end of the input; at the end of the input a
  // search still running is stopped and its move sent.
  void Run(std::istream& in, std::ostream& out);

 private:
  void Handle(const std::vector<std::string>& words);
  void Send(const std::string& line);
  void NewGame();
  void SetBoard(const std::string& fen);
  // A FEN between this engine's colours and the GUI's (the same unless white_first).
  std::string GuiFen(const std::string& fen) const;
  void UserMove(const std::string& text, bool prefixed);
  void Level(const std::vector<std::string>& words);
  void SetOption(const std::string& assignment);
  // Starts a search when the engine is to move and the game goes on.
  void MaybeThink();
  void Think();
  // Plays the engine's move, sends it and the result it reaches.
  void Moved(Move move, uint64_t generation);
  // Answers the pings that came while the engine was on move.
  void SendPendingPongs();
  // Sends the result of a game that has just ended, once.
  void SendResultIfOver();
  // Stops the search; its move is played unless `discard`.
  void StopSearch(bool discard);

  std::ostream* out_ = nullptr;
  std::mutex out_mutex_;
  std::mutex state_mutex_;  // what follows, shared with the search's callback
  EnginePlayer player_;
  const bool white_first_;
  Game game_;
  bool force_ = false;
  Color engine_side_ = kWhite;     // after `new`, the side not to move
  bool usermove_ = true;           // the GUI accepted usermove=1
  std::atomic<bool> post_{false};  // read by the search's reports
  bool result_sent_ = false;
  bool moved_since_setup_ = false;  // a move played since new or setboard
  // The clock: level's moves per control, base and increment in seconds,
  // st's fixed seconds a move, and what time and otim last said.
  int level_moves_ = 0;
  double level_base_ = 0, level_increment_ = 0, fixed_seconds_ = 0;
  double time_left_ = -1, opponent_left_ = -1;
  int moves_in_control_ = 0;
  bool thinking_ = false;  // on move: a search started and its move not yet sent
  std::vector<std::string> pending_pongs_;
  uint64_t generation_ = 0;  // a search of an older generation is discarded
  EngineSearch search_;
  bool quit_ = false;
};

}  // namespace loa
