#pragma once
// `loaz uci`: the Universal Chess Interface as cutechess speaks it for its
// variant `linesofaction` (docs/ENGINE.md, "UCI as cutechess speaks it"): uci, isready,
// ucinewgame, setoption, position, go, stop, quit. The search runs on a
// thread of its own, so that `stop`, `isready` and `quit` are answered while
// it thinks; moves are written FROMTO ("b1d3"), positions as cutechess's
// FEN (core/formats.h; any of its formats reads).

#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/game.h"
#include "play/engine_search.h"
#include "play/player.h"

namespace loa {

// Returns a UCI `info` line for what a search found: depth, nodes, nps,
// time, the score in centipawns (lc0's map of a value in [-1, 1]; an
// alpha-beta's own score, or mate in N) and, for a net's search, win, draw
// and loss in thousandths, then the principal variation.
std::string UciInfo(const MoveAnalysis& a);

class UciEngine {
 public:
  // An engine whose player is made from `player_spec` (README, Players)
  // until `setoption name Player` names another.
  explicit UciEngine(std::string player_spec);
  ~UciEngine();
  UciEngine(const UciEngine&) = delete;
  UciEngine& operator=(const UciEngine&) = delete;

  // Reads commands from in, one a line, and writes to out (flushed a line
  // at a time, from this thread and the search's) until `quit` or the end
  // of the input; a search still running then is stopped and its bestmove
  // written.
  void Run(std::istream& in, std::ostream& out);

 private:
  void Handle(const std::string& line);
  void Send(const std::string& line);
  void SetOption(const std::vector<std::string>& words);
  void SetPosition(const std::vector<std::string>& words);
  void Go(const std::vector<std::string>& words);
  // Stops a running search, which writes its bestmove, and joins it.
  void EndSearch() { search_.Stop(); }

  std::ostream* out_ = nullptr;
  std::mutex out_mutex_;
  EnginePlayer player_;
  Game game_;
  EngineSearch search_;
  bool quit_ = false;
};

}  // namespace loa
