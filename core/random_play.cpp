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

}  // namespace loa
