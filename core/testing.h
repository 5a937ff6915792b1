#pragma once
// The testing header of core/: what tests and benchmarks share, never
// included by the program (tests/app/layers_test.py holds every
// */testing.h to tests/ and bench/).

#include <cstdint>
#include <vector>

#include "core/game.h"
#include "core/random_play.h"

namespace loa::testing {

// Returns `count` games of random play under rules from the rules' start,
// each stopped at a ply drawn from [min_plies, max_plies] unless it ended
// before; with only_unfinished, games that ended are dropped and replaced.
inline std::vector<Game> RandomGames(int count, uint64_t seed, const Rules& rules, int min_plies, int max_plies,
                                     bool only_unfinished) {
  Rng rng(seed);
  std::vector<Game> games;
  while (int(games.size()) < count) {
    Game game(rules, rules.StartPosition());
    const int stop = min_plies + rng.Below(max_plies - min_plies + 1);
    while (!game.over() && game.ply() < stop) {
      MoveList moves;
      game.LegalMoves(moves);
      game.Play(RandomMove(moves, rng));
    }
    if (!only_unfinished || !game.over()) games.push_back(std::move(game));
  }
  return games;
}

}  // namespace loa::testing
