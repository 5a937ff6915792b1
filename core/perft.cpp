#include "core/perft.h"

#include <atomic>
#include <thread>

namespace loa {
namespace {

bool GameOver(const Position& pos) { return pos.IsUnited(kBlack) || pos.IsUnited(kWhite); }

}  // namespace

uint64_t Perft(const Position& pos, int depth) {
  if (depth == 0) return 1;
  if (GameOver(pos)) return 0;
  // Bulk counting: the last ply is counted, not played.
  if (depth == 1) return pos.CountMoves();
  MoveList moves;
  pos.GenerateMoves(moves);
  uint64_t nodes = 0;
  for (Move m : moves) nodes += Perft(pos.Apply(m), depth - 1);
  return nodes;
}

std::vector<std::pair<Move, uint64_t>> PerftDivide(const Position& pos, int depth, int threads) {
  std::vector<std::pair<Move, uint64_t>> counts;
  if (GameOver(pos)) return counts;
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves) counts.emplace_back(m, 0);
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i; (i = next.fetch_add(1)) < int(counts.size());)
      counts[i].second = Perft(pos.Apply(counts[i].first), depth - 1);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return counts;
}

}  // namespace loa
