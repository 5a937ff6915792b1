// loaz bench ab: the alpha-beta baseline's speed and depth on a fixed set of
// positions, several specs side by side (docs/BASELINE.md).

#include "app/bench_ab.h"

#include <cstdio>

#include "alphabeta/search.h"
#include "play/openings.h"
#include "play/player_kinds.h"
#include "play/spec.h"

namespace loa::app {

std::vector<Game> BenchPositions(int count) {
  // Random openings of 4 plies, each played on by the version-1 search at
  // depth 2 for 0, 6, 12, ... plies: openings, middle games and endings.
  const Openings openings("random:plies=4", Rules());
  ab::AlphaBeta player(ab::SearchOptions::Version(1), ab::EvalWeights::Version1());
  ab::SearchLimits limits;
  limits.depth = 2;
  std::vector<Game> games;
  for (int i = 0; games.size() < size_t(count) && i < 16 * count; ++i) {
    Game game = openings.Get(i, 7);
    for (int ply = 0; ply < 6 * (i % 10) && !game.over(); ++ply) game.Play(player.Search(game, limits).best);
    if (!game.over()) games.push_back(game);
  }
  return games;
}

int BenchAb(const std::vector<std::string>& specs, int positions, double seconds, int depth) {
  const std::vector<Game> games = BenchPositions(positions);
  std::printf("%zu positions; at %g s a position, then the signature at depth %d (one thread)\n", games.size(), seconds,
              depth);
  std::printf("%-44s %12s %10s %14s %10s\n", "spec", "nodes/s", "depth", "signature", "depth s");
  for (const std::string& text : specs) {
    const AlphaBetaSetup setup = ReadAlphaBetaSpec(PlayerSpec::Parse(text));
    int64_t nodes = 0, signature = 0;
    double spent = 0, depth_sum = 0, to_depth = 0;
    ab::AlphaBeta timed(setup.options, setup.weights.eval, setup.weights.categories);
    ab::SearchOptions one_thread = setup.options;
    one_thread.threads = 1;
    ab::AlphaBeta fixed(one_thread, setup.weights.eval, setup.weights.categories);
    for (const Game& game : games) {
      ab::SearchLimits limits;
      limits.seconds = seconds;
      timed.Clear();
      const ab::SearchResult r = timed.Search(game, limits);
      nodes += r.nodes;
      spent += r.seconds;
      depth_sum += r.depth;
      limits = ab::SearchLimits();
      limits.depth = depth;
      fixed.Clear();
      const ab::SearchResult s = fixed.Search(game, limits);
      signature += s.nodes;
      to_depth += s.seconds;
    }
    std::printf("%-44s %12.0f %10.2f %14lld %10.3f\n", text.c_str(), nodes / std::max(spent, 1e-9),
                depth_sum / double(games.size()), static_cast<long long>(signature), to_depth / double(games.size()));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace loa::app
