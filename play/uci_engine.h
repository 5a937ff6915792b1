#pragma once
// `loaz uci`: the Universal Chess Interface as cutechess speaks it for its
// variant `linesofaction` (docs/ENGINE.md, UCI and xboard): uci, isready,
// ucinewgame, setoption, position, go, stop, quit. The search runs on a
// thread of its own, so that `stop`, `isready` and `quit` are answered while
// it thinks; moves are written FROMTO ("b1d3"), positions as cutechess's
// FEN (Position::FromFen).

#include <atomic>
#include <condition_variable>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/game.h"
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
  void EndSearch();
  // The player for the options as they are now, made anew after a change.
  Player& CurrentPlayer();
  std::string Spec() const;

  std::ostream* out_ = nullptr;
  std::mutex out_mutex_;
  std::string player_spec_;
  std::string net_;  // setoption Net (empty: the spec's)
  int threads_ = 0;  // setoption Threads (0: the spec's)
  std::unique_ptr<Player> player_;
  std::string player_made_from_;  // the spec player_ was made from
  Game game_;
  std::thread search_;
  std::thread reporter_;
  std::mutex search_mutex_;
  std::condition_variable search_done_;
  bool searching_ = false;
  std::atomic<bool> stop_requested_{false};
  bool quit_ = false;
};

}  // namespace loa
