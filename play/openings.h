#pragma once
// Match openings: the games a match starts from.

#include <cstdint>
#include <string>
#include <vector>

#include "core/game.h"

namespace loa {

// A source of openings, parsed from "none" (the rules' start position),
// "random:plies=K" (K uniformly random plies from the start) or the name of
// a file with one position string per line (blank lines and lines starting
// with '#' skipped).
class Openings {
 public:
  // Parses the source; reads the file now. Throws ParseError naming the
  // source, or the file and line of a bad position.
  Openings(const std::string& source, const Rules& rules);

  // Returns opening number i (0-based) as a game, its opening moves played;
  // the same i and seed always give the same game. File openings repeat
  // after the last line.
  Game Get(int i, uint64_t seed) const;

  // Returns a short description of opening i, e.g. "random:plies=4 #3" or
  // "FILE:12".
  std::string Describe(int i) const;

 private:
  std::string source_;
  Rules rules_;
  int random_plies_ = -1;  // >= 0 for random openings
  std::vector<Position> positions_;
  std::vector<int> lines_;
};

}  // namespace loa
