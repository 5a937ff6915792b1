// The random, greedy and alpha-beta players.

#include <algorithm>
#include <cstdio>
#include <limits>

#include "alphabeta/search.h"
#include "core/notation.h"
#include "core/random.h"
#include "mcts/params.h"
#include "mcts/time_manager.h"
#include "play/players.h"

namespace loa {
namespace {

// The seed of a player whose spec names none.
constexpr int64_t kDefaultSeed = 1;
// The time per move of `ab` when its spec sets no limit.
constexpr double kDefaultMoveSeconds = 1.0;
// The transposition table of `ab`, in MiB, unless the spec says.
constexpr int kDefaultHashMegabytes = 16;

class RandomPlayer : public Player {
 public:
  RandomPlayer(std::string name, uint64_t seed) : name_(std::move(name)), spec_seed_(seed), rng_(seed) {}
  std::string name() const override { return name_; }
  void SetSeed(uint64_t seed) override { rng_.Seed(MixSeed(spec_seed_, seed)); }
  Move ChooseMove(const Game& game, const Clock&) override {
    MoveList moves;
    game.LegalMoves(moves);
    return moves[rng_.Below(int(moves.size()))];
  }

 private:
  std::string name_;
  uint64_t spec_seed_;
  Rng rng_;
};

class GreedyPlayer : public Player {
 public:
  GreedyPlayer(std::string name, uint64_t seed) : name_(std::move(name)), spec_seed_(seed), rng_(seed) {}
  std::string name() const override { return name_; }
  void SetSeed(uint64_t seed) override { rng_.Seed(MixSeed(spec_seed_, seed)); }
  Move ChooseMove(const Game& game, const Clock&) override;

 private:
  std::string name_;
  uint64_t spec_seed_;
  Rng rng_;
};

Move GreedyPlayer::ChooseMove(const Game& game, const Clock&) {
  MoveList moves, best;
  game.LegalMoves(moves);
  const Color us = game.position().side_to_move();
  int best_value = std::numeric_limits<int>::min();
  for (Move m : moves) {
    const Position child = game.position().Apply(m);
    const Verdict verdict = UnitedVerdict(child, us, game.rules().simultaneous);
    int value;
    if (verdict.over())
      value = verdict.result == Result::kDraw ? 0 : verdict.result == WinFor(us) ? ab::kWinScore : -ab::kWinScore;
    else
      value = -ab::StaticScore(child);
    if (value > best_value) best.clear();
    if (value >= best_value) {
      best_value = value;
      best.push_back(m);
    }
  }
  return best[rng_.Below(int(best.size()))];
}

class AlphaBetaPlayer : public Player {
 public:
  AlphaBetaPlayer(std::string name, const ab::SearchLimits& limits, const ab::SearchOptions& options)
      : name_(std::move(name)), limits_(limits), search_(options) {}
  std::string name() const override { return name_; }
  void NewGame() override { search_.Clear(); }
  Move ChooseMove(const Game& game, const Clock& clock) override {
    ab::SearchLimits limits = limits_;
    if (clock.timed()) {
      // The engine's one time manager, with the search's default shares.
      const double budget =
          MoveTimeBudget(clock.main_seconds, clock.byoyomi_seconds, clock.byoyomi_stones, SearchParams());
      limits.seconds = limits.seconds > 0 ? std::min(limits.seconds, budget) : budget;
    }
    last_ = search_.Search(game, limits);
    return last_.best;
  }
  void Stop() override { search_.Stop(); }
  std::string LastMoveInfo() const override;
  MoveAnalysis LastAnalysis() const override {
    MoveAnalysis a;
    a.available = last_.depth > 0;
    a.seconds = last_.seconds;
    a.nodes = last_.nodes;
    a.depth = last_.depth;
    a.score = last_.score;
    a.pv = last_.pv;
    return a;
  }

 private:
  std::string name_;
  ab::SearchLimits limits_;
  ab::AlphaBeta search_;
  ab::SearchResult last_;
};

std::string AlphaBetaPlayer::LastMoveInfo() const {
  char line[160];
  std::snprintf(line, sizeof(line), "depth %d score %+d nodes %lld time %.3f s speed %.0f nodes/s pv", last_.depth,
                last_.score, static_cast<long long>(last_.nodes), last_.seconds,
                last_.nodes / std::max(last_.seconds, 1e-9));
  std::string text = line;
  for (Move m : last_.pv) text += " " + FormatMove(m);
  return text;
}

}  // namespace

std::unique_ptr<Player> MakeRandomPlayer(const PlayerSpec& spec) {
  spec.CheckKeys({"seed"});
  const uint64_t seed = spec.GetInt("seed", kDefaultSeed, 0, std::numeric_limits<int64_t>::max());
  return std::make_unique<RandomPlayer>(spec.text(), seed);
}

std::unique_ptr<Player> MakeGreedyPlayer(const PlayerSpec& spec) {
  spec.CheckKeys({"seed"});
  const uint64_t seed = spec.GetInt("seed", kDefaultSeed, 0, std::numeric_limits<int64_t>::max());
  return std::make_unique<GreedyPlayer>(spec.text(), seed);
}

std::unique_ptr<Player> MakeAlphaBetaPlayer(const PlayerSpec& spec) {
  spec.CheckKeys({"depth", "nodes", "time", "hash"});
  ab::SearchLimits limits;
  limits.depth = int(spec.GetInt("depth", 0, 1, ab::kMaxSearchDepth));
  limits.nodes = spec.GetInt("nodes", 0, 1, int64_t{1} << 50);
  limits.seconds = spec.GetDouble("time", 0, 0.001, 1e6);
  if (limits.depth == 0 && limits.nodes == 0 && limits.seconds == 0) limits.seconds = kDefaultMoveSeconds;
  ab::SearchOptions options;
  options.hash_megabytes = int(spec.GetInt("hash", kDefaultHashMegabytes, 1, 1 << 16));
  return std::make_unique<AlphaBetaPlayer>(spec.text(), limits, options);
}

}  // namespace loa
