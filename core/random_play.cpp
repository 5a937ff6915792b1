#include "core/random_play.h"

namespace loa {

std::vector<Position> RandomPositions(int count, uint64_t seed, bool both_starts, int max_plies, int size) {
  Rng rng(seed);
  std::vector<Position> out;
  for (int game = 0; int(out.size()) < count; ++game) {
    Position pos = Position::Start(both_starts && game % 2 ? StartKind::kScrambled : StartKind::kStandard, size);
    for (int ply = 0; ply < max_plies && int(out.size()) < count; ++ply) {
      if (pos.IsUnited(kBlack) || pos.IsUnited(kWhite)) break;
      out.push_back(pos);
      MoveList moves;
      pos.GenerateMoves(moves);
      if (moves.empty()) break;
      pos = pos.Apply(RandomMove(moves, rng));
    }
  }
  return out;
}

std::vector<Game> RandomGames(int count, uint64_t seed, const Rules& rules, int min_plies, int max_plies,
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

}  // namespace loa
