#include "train/game_samples.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace loa::train {

bool WouldResign(const SelfPlayGame& g, double threshold, int consecutive) {
  const int n = int(g.moves.size());
  if (threshold <= -1 || n < 2 * consecutive - 1) return false;
  for (int k = 0; k < consecutive; ++k)
    if (g.moves[size_t(n - 1 - 2 * k)].root_value >= threshold) return false;
  return true;
}

GameOutcome OutcomeOf(const SelfPlayGame& g) {
  GameOutcome o;
  if (g.game.over()) {
    o.result = g.game.result();
    o.capped = g.game.reason() == Reason::kCap;
    return o;
  }
  assert(!g.moves.empty());
  o.resigned = true;
  o.result = WinFor(Opponent(g.moves.back().position.side_to_move()));
  return o;
}

int AddGameSamples(const SelfPlayGame& g, const GameOutcome& outcome, int game_index, Shard* shard) {
  const int plies = int(g.moves.size());
  int added = 0;
  for (int ply = 0; ply < plies; ++ply) {
    const SearchedMove& m = g.moves[size_t(ply)];
    if (!m.full_search || m.policy.empty() || m.move.is_pass()) continue;
    const Color side = m.position.side_to_move();
    Sample s;
    s.black = m.position.pieces(kBlack);
    s.white = m.position.pieces(kWhite);
    s.side_to_move = uint8_t(side);
    s.flags = kFullSearch | (outcome.capped ? kGameCapped : 0) | (outcome.resigned ? kGameResigned : 0);
    s.outcome = outcome.result == Result::kDraw ? 0 : outcome.result == WinFor(side) ? 1 : -1;
    s.root_value = std::clamp(m.root_value, -1.0f, 1.0f);
    s.plies_left = uint16_t(std::min(plies - ply, 65535));
    s.game = uint16_t(game_index);
    s.ply = uint32_t(ply);
    std::vector<std::pair<int, float>> target;
    for (const MoveProbability& p : m.policy)
      if (!p.move.is_pass()) target.emplace_back(p.move.PolicyIndex(), p.probability);
    shard->Add(s, target);
    ++added;
  }
  return added;
}

}  // namespace loa::train
