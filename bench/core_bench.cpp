// Speed of the rules core: move generation, move counting, copy-make, the
// united test and perft. Items per second are positions (or moves, or leaves)
// per second; nothing here asserts a time.
//
//   build/bench/core_bench [--benchmark_filter=Count]

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/perft.h"
#include "core/position.h"
#include "core/random_play.h"

namespace loa {
namespace {

// Random games from the standard start, with a fixed seed so that every run
// measures the same positions.
constexpr uint64_t kPlayoutSeed = 20240601;
constexpr int kNumPlayouts = 16;
// Random games rarely end before this; a cap keeps the set's size fixed.
constexpr int kMaxPlies = 80;

// Returns the positions met in kNumPlayouts random games from the start (each
// game until a side is united or kMaxPlies), the finished ones excluded.
const std::vector<Position>& PlayoutPositions() {
  static const std::vector<Position> positions = [] {
    std::vector<Position> out;
    Rng rng(kPlayoutSeed);
    for (int game = 0; game < kNumPlayouts; ++game) {
      Position pos = Position::Start();
      for (int ply = 0; ply < kMaxPlies && !pos.IsUnited(kBlack) && !pos.IsUnited(kWhite); ++ply) {
        out.push_back(pos);
        MoveList moves;
        pos.GenerateMoves(moves);
        pos = pos.Apply(RandomMove(moves, rng));
      }
    }
    return out;
  }();
  return positions;
}

// Every position one move after a playout position: what perft's leaves and
// the united test mostly see.
const std::vector<Position>& Successors() {
  static const std::vector<Position> successors = [] {
    std::vector<Position> out;
    for (const Position& pos : PlayoutPositions()) {
      MoveList moves;
      pos.GenerateMoves(moves);
      for (Move m : moves) out.push_back(pos.Apply(m));
    }
    return out;
  }();
  return successors;
}

void BM_GenerateMoves(benchmark::State& state) {
  const auto& positions = PlayoutPositions();
  for (auto _ : state) {
    for (const Position& pos : positions) {
      MoveList moves;
      pos.GenerateMoves(moves);
      benchmark::DoNotOptimize(moves);
    }
  }
  state.SetItemsProcessed(state.iterations() * int64_t(positions.size()));
}
BENCHMARK(BM_GenerateMoves);

void BM_CountMoves(benchmark::State& state) {
  const auto& positions = Successors();
  for (auto _ : state) {
    int total = 0;
    for (const Position& pos : positions) total += pos.CountMoves();
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * int64_t(positions.size()));
}
BENCHMARK(BM_CountMoves);

void BM_Apply(benchmark::State& state) {
  // Each playout position with its moves, generated outside the timing.
  struct Entry {
    Position pos;
    MoveList moves;
  };
  std::vector<Entry> entries;
  int64_t moves_per_pass = 0;
  for (const Position& pos : PlayoutPositions()) {
    entries.push_back({pos, {}});
    pos.GenerateMoves(entries.back().moves);
    moves_per_pass += entries.back().moves.size();
  }
  for (auto _ : state) {
    for (const Entry& e : entries) {
      for (Move m : e.moves) {
        Position next = e.pos.Apply(m);
        benchmark::DoNotOptimize(next);
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * moves_per_pass);
}
BENCHMARK(BM_Apply);

// The united test as perft runs it: both sides of every position.
void BM_IsUnited(benchmark::State& state) {
  const auto& positions = Successors();
  for (auto _ : state) {
    int united = 0;
    for (const Position& pos : positions) united += pos.IsUnited(kBlack) + pos.IsUnited(kWhite);
    benchmark::DoNotOptimize(united);
  }
  state.SetItemsProcessed(state.iterations() * 2 * int64_t(positions.size()));
}
BENCHMARK(BM_IsUnited);

// The united test on sets that are often connected: a side's pieces late in
// random games, where flood fill runs to the end more often.
void BM_IsConnectedLate(benchmark::State& state) {
  std::vector<Bitboard> sets;
  for (const Position& pos : PlayoutPositions())
    if (PopCount(pos.occupied()) <= 16) sets.push_back(pos.pieces(kBlack)), sets.push_back(pos.pieces(kWhite));
  for (auto _ : state) {
    int connected = 0;
    for (Bitboard b : sets) connected += IsConnected(b);
    benchmark::DoNotOptimize(connected);
  }
  state.SetItemsProcessed(state.iterations() * int64_t(sets.size()));
}
BENCHMARK(BM_IsConnectedLate);

// Leaves per second of perft 4 from the standard start (1,563,208 leaves).
void BM_Perft4(benchmark::State& state) {
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves = Perft(Position::Start(), 4);
    benchmark::DoNotOptimize(leaves);
  }
  state.SetItemsProcessed(state.iterations() * int64_t(leaves));
  state.counters["leaves"] = double(leaves);
}
BENCHMARK(BM_Perft4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace loa
