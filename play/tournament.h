#pragma once
// Round robins and their ratings table: the core of the evaluation harness.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "play/match.h"
#include "play/ratings.h"

namespace loa {

// What a round robin is to play: every pair of players meets in a match of
// games_per_pair games under the match settings of `match` (its players,
// games and output folder are replaced per pair).
struct TournamentConfig {
  std::vector<std::string> players;   // specs
  std::vector<PlayerFactory> makers;  // used instead of the specs when not empty (same order)
  int games_per_pair = 2;
  MatchConfig match;
  std::string anchor;  // the player whose rating is fixed; the first when empty
  double anchor_elo = 0;
  // Called after each game with the pair being played (i < j).
  std::function<void(int i, int j, const MatchProgress&)> on_progress;
};

struct TournamentResult {
  std::vector<std::string> players;
  std::vector<MatchResult> matches;  // one per pair, in (0,1), (0,2), ... order
  std::vector<Rating> ratings;       // in player order
  int anchor = 0;

  // Returns the ratings table as text, best first, with a header line.
  std::string Table() const;
  // Returns {players, anchor, ratings: [...], matches: [...]}.
  nlohmann::ordered_json ToJson() const;
};

// Plays the round robin and rates the players by Bradley-Terry maximum
// likelihood. Throws Error on an unknown anchor or a failing player.
TournamentResult RunTournament(const TournamentConfig& config);

}  // namespace loa
