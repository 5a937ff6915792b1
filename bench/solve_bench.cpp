// The two solvers on the solver cases (solve/testing.h), position
// by position: df-pn (solve/dfpn.h, one thread) and the MCTS-Solver
// (mcts/search.h with knowledge-free priors, one thread, as its tests run
// it). Each figure is the time to prove one case; the counters are the
// positions (df-pn) or playouts (MCTS) it took. docs/SOLVER.md has the table.
//
//   build/bench/solve_bench [--benchmark_filter=Dfpn]

#include <benchmark/benchmark.h>

#include "mcts/search.h"
#include "mcts/uniform_evaluator.h"
#include "solve/dfpn.h"
#include "solve/testing.h"

namespace loa {
namespace {

using testing::kSolverCases;

Game CaseGame(int i) { return Game(Rules(), Position::FromString(kSolverCases[i].position)); }

void BM_Dfpn(benchmark::State& state) {
  const Game game = CaseGame(int(state.range(0)));
  int64_t nodes = 0;
  for (auto _ : state) {
    solve::Solver solver(4);  // a table the size of these proofs: its pages cost their first touch
    const solve::SolveResult r = solver.Solve(game, solve::SolveLimits());
    if (r.outcome == solve::Outcome::kUnknown) state.SkipWithError("not proven");
    nodes = r.nodes;
  }
  state.counters["nodes"] = double(nodes);
}

void BM_MctsSolver(benchmark::State& state) {
  const Game game = CaseGame(int(state.range(0)));
  int64_t playouts = 0;
  for (auto _ : state) {
    UniformEvaluator evaluator;
    SearchParams params;
    params.threads = 1;
    params.leaves_per_batch = 1;
    Search search(&evaluator, params);
    SearchLimits limits;
    limits.playouts = 1000000;
    limits.early_stop = false;
    const SearchResult r = search.Run(game, limits);
    if (r.proven == Proven::kUnknown) state.SkipWithError("not proven");
    playouts = r.playouts;
  }
  state.counters["playouts"] = double(playouts);
}

void EachCase(benchmark::internal::Benchmark* b) {
  for (int i = 0; i < int(std::size(kSolverCases)); ++i) b->Arg(i);
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Dfpn)->Apply(EachCase);
BENCHMARK(BM_MctsSolver)->Apply(EachCase);

}  // namespace
}  // namespace loa
