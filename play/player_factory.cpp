// MakePlayer: the table of player kinds, one row a kind.

#include <set>

#include "core/error.h"
#include "core/param_visitor.h"
#include "play/mcts_player.h"
#include "play/player_kinds.h"

namespace loa {
namespace {

// A player kind: its name in specs, a line for `loaz config`, the keys it
// reads, its spec's check without a player, its factory, and (where its
// players can share one) the evaluator factory. A new kind is one row here.
struct KindRow {
  const char* kind;
  const char* usage;
  std::vector<ParamInfo> (*keys)();
  void (*check)(const PlayerSpec& spec);
  std::unique_ptr<Player> (*make)(const PlayerSpec& spec, std::shared_ptr<Evaluator> shared);
  std::shared_ptr<Evaluator> (*make_evaluator)(const PlayerSpec& spec);
  PlayerLimits limits;
};

// Adapts a factory that shares nothing to the table's signature.
template <std::unique_ptr<Player> (*Make)(const PlayerSpec&)>
std::unique_ptr<Player> Unshared(const PlayerSpec& spec, std::shared_ptr<Evaluator>) {
  return Make(spec);
}

const KindRow kKinds[] = {
    {"random",
     "a uniformly random legal move",
     RandomPlayerKeys,
     CheckRandomSpec,
     Unshared<MakeRandomPlayer>,
     nullptr,
     {}},
    {"greedy",
     "the move with the best one-ply evaluation (an immediate win first)",
     RandomPlayerKeys,
     CheckRandomSpec,
     Unshared<MakeGreedyPlayer>,
     nullptr,
     {}},
    {"ab",
     "the alpha-beta baseline (MIA-style evaluation)",
     AlphaBetaPlayerKeys,
     CheckAlphaBetaSpec,
     Unshared<MakeAlphaBetaPlayer>,
     nullptr,
     {true, nullptr, {"time", "depth", "nodes"}, false}},
    {"rollout",
     "PUCT search over random playouts with MCTS-Solver",
     RolloutPlayerKeys,
     CheckRolloutSpec,
     Unshared<MakeRolloutPlayer>,
     nullptr,
     {false, "sims", {"sims"}, true}},
    {"gtp",
     "an external engine speaking the text protocol",
     GtpPlayerKeys,
     CheckGtpSpec,
     Unshared<MakeGtpPlayer>,
     nullptr,
     {}},
    {"uci",
     "an external engine speaking UCI (linesofaction)",
     UciPlayerKeys,
     CheckUciSpec,
     Unshared<MakeUciPlayer>,
     nullptr,
     {}},
    {"mcts",
     "the PUCT search with a net (or evaluator=uniform)",
     MctsPlayerKeys,
     CheckMctsSpec,
     MakeMctsPlayer,
     MakeMctsEvaluator,
     {true, "playouts", {"time", "playouts"}, true}},
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

void CheckPlayerSpec(const std::string& text) {
  const PlayerSpec spec = PlayerSpec::Parse(text);
  FindKind(spec).check(spec);
}

void CheckPlayerSpecs(const std::vector<std::string>& specs, const std::string& key, bool build) {
  for (const std::string& spec : specs) {
    try {
      if (build)
        MakePlayer(spec);
      else
        CheckPlayerSpec(spec);
    } catch (const Error& e) {
      throw Error(key + ": " + e.what());
    }
  }
}

std::shared_ptr<Evaluator> MakeSharedEvaluator(const std::string& text) {
  return MakeSharedEvaluator(PlayerSpec::Parse(text));
}

std::shared_ptr<Evaluator> MakeSharedEvaluator(const PlayerSpec& spec) {
  const KindRow& row = FindKind(spec);
  return row.make_evaluator ? row.make_evaluator(spec) : nullptr;
}

std::unique_ptr<Player> MakePlayer(const std::string& text, std::shared_ptr<Evaluator> shared) {
  return MakePlayer(PlayerSpec::Parse(text), std::move(shared));
}

std::unique_ptr<Player> MakePlayer(const PlayerSpec& spec, std::shared_ptr<Evaluator> shared) {
  return FindKind(spec).make(spec, std::move(shared));
}

std::vector<PlayerKind> DescribePlayerKinds() {
  std::vector<PlayerKind> kinds;
  for (const KindRow& row : kKinds) kinds.push_back({row.kind, row.usage, row.keys(), row.limits});
  return kinds;
}

const PlayerLimits& LimitsOf(const PlayerSpec& spec) { return FindKind(spec).limits; }

std::string SpecWithoutLimit(const PlayerSpec& spec) {
  const std::vector<std::string>& keys = LimitsOf(spec).keys;
  return spec.TextWith(std::set<std::string>(keys.begin(), keys.end()));
}

PlayerSpec SpecWithLimit(const PlayerSpec& spec, double seconds, int64_t count) {
  const PlayerLimits& limits = LimitsOf(spec);
  if (limits.keys.empty() || (seconds <= 0 && count <= 0)) return spec;
  const std::set<std::string> without(limits.keys.begin(), limits.keys.end());
  if (limits.count_key && (count > 0 || !limits.time))
    return spec.With(without, limits.count_key, std::to_string(count > 0 ? count : 1000));
  return spec.With(without, "time", FormatDouble(seconds > 0 ? seconds : 1));
}

}  // namespace loa
