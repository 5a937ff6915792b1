// MakePlayer: one branch per spec kind.

#include "core/error.h"
#include "play/mcts_player.h"
#include "play/players.h"

namespace loa {

std::unique_ptr<Player> MakePlayer(const std::string& text) { return MakePlayer(text, nullptr); }

std::shared_ptr<Evaluator> MakeSharedEvaluator(const std::string& text) {
  const PlayerSpec spec = PlayerSpec::Parse(text);
  if (spec.kind() != "mcts") return nullptr;
  return MakeMctsEvaluator(spec);
}

std::unique_ptr<Player> MakePlayer(const std::string& text, std::shared_ptr<Evaluator> shared) {
  const PlayerSpec spec = PlayerSpec::Parse(text);
  const std::string& kind = spec.kind();
  if (kind == "mcts") return MakeMctsPlayer(spec, std::move(shared));
  if (kind == "random") return MakeRandomPlayer(spec);
  if (kind == "greedy") return MakeGreedyPlayer(spec);
  if (kind == "ab") return MakeAlphaBetaPlayer(spec);
  if (kind == "rollout") return MakeRolloutPlayer(spec);
  if (kind == "gtp") return MakeGtpPlayer(spec);
  throw ParseError("player '" + text + "': unknown kind '" + kind +
                   "' (known: random, greedy, ab, rollout, gtp, mcts)");
}

std::vector<PlayerKind> DescribePlayerKinds() {
  return {
      {"random", "a uniformly random legal move", RandomPlayerKeys()},
      {"greedy", "the move with the best one-ply evaluation (an immediate win first)", RandomPlayerKeys()},
      {"ab", "the alpha-beta baseline (MIA-style evaluation)", AlphaBetaPlayerKeys()},
      {"rollout", "PUCT search over random playouts with MCTS-Solver", RolloutPlayerKeys()},
      {"gtp", "an external engine speaking the text protocol", GtpPlayerKeys()},
      {"mcts", "the PUCT search with a net (or evaluator=uniform)", MctsPlayerKeys()},
  };
}

}  // namespace loa
