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
  // The threads share out the positions two plies down (one when depth < 3):
  // a thousand small tasks balance better than a few dozen root moves.
  struct Task {
    int root;  // index of the root move in counts
    Position pos;
    int depth;
    uint64_t nodes;
  };
  std::vector<Task> tasks;
  for (int i = 0; i < moves.size(); ++i) {
    counts.emplace_back(moves[i], 0);
    const Position child = pos.Apply(moves[i]);
    if (depth < 3 || GameOver(child)) {
      tasks.push_back({i, child, depth - 1, 0});
      continue;
    }
    MoveList replies;
    child.GenerateMoves(replies);
    for (Move reply : replies) tasks.push_back({i, child.Apply(reply), depth - 2, 0});
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < tasks.size();) tasks[i].nodes = Perft(tasks[i].pos, tasks[i].depth);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (const Task& task : tasks) counts[task.root].second += task.nodes;
  return counts;
}

}  // namespace loa
