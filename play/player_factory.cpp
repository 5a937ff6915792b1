// MakePlayer: the table of player kinds, one row a kind.

#include "core/error.h"
#include "play/mcts_player.h"
#include "play/players.h"

namespace loa {
namespace {

// A player kind: its name in specs, a line for `loaz config`, the keys it
// reads, its factory, and (where its players can share one) the evaluator
// factory. A new kind is one row here.
struct KindRow {
  const char* kind;
  const char* usage;
  std::vector<ParamInfo> (*keys)();
  std::unique_ptr<Player> (*make)(const PlayerSpec& spec, std::shared_ptr<Evaluator> shared);
  std::shared_ptr<Evaluator> (*make_evaluator)(const PlayerSpec& spec);
};

// Adapts a factory that shares nothing to the table's signature.
template <std::unique_ptr<Player> (*Make)(const PlayerSpec&)>
std::unique_ptr<Player> Unshared(const PlayerSpec& spec, std::shared_ptr<Evaluator>) {
  return Make(spec);
}

const KindRow kKinds[] = {
    {"random", "a uniformly random legal move", RandomPlayerKeys, Unshared<MakeRandomPlayer>, nullptr},
    {"greedy", "the move with the best one-ply evaluation (an immediate win first)", RandomPlayerKeys,
     Unshared<MakeGreedyPlayer>, nullptr},
    {"ab", "the alpha-beta baseline (MIA-style evaluation)", AlphaBetaPlayerKeys, Unshared<MakeAlphaBetaPlayer>,
     nullptr},
    {"rollout", "PUCT search over random playouts with MCTS-Solver", RolloutPlayerKeys, Unshared<MakeRolloutPlayer>,
     nullptr},
    {"gtp", "an external engine speaking the text protocol", GtpPlayerKeys, Unshared<MakeGtpPlayer>, nullptr},
    {"mcts", "the PUCT search with a net (or evaluator=uniform)", MctsPlayerKeys, MakeMctsPlayer, MakeMctsEvaluator},
};

const KindRow& FindKind(const PlayerSpec& spec) {
  for (const KindRow& row : kKinds)
    if (spec.kind() == row.kind) return row;
  std::string known;
  for (const KindRow& row : kKinds) known += std::string(known.empty() ? "" : ", ") + row.kind;
  throw ParseError("player '" + spec.text() + "': unknown kind '" + spec.kind() + "' (known: " + known + ")");
}

}  // namespace

std::unique_ptr<Player> MakePlayer(const std::string& text) { return MakePlayer(text, nullptr); }

std::shared_ptr<Evaluator> MakeSharedEvaluator(const std::string& text) {
  const PlayerSpec spec = PlayerSpec::Parse(text);
  const KindRow& row = FindKind(spec);
  return row.make_evaluator ? row.make_evaluator(spec) : nullptr;
}

std::unique_ptr<Player> MakePlayer(const std::string& text, std::shared_ptr<Evaluator> shared) {
  const PlayerSpec spec = PlayerSpec::Parse(text);
  return FindKind(spec).make(spec, std::move(shared));
}

std::vector<PlayerKind> DescribePlayerKinds() {
  std::vector<PlayerKind> kinds;
  for (const KindRow& row : kKinds) kinds.push_back({row.kind, row.usage, row.keys()});
  return kinds;
}

}  // namespace loa
