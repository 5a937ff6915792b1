#pragma once
// The engine: PUCT search (mcts/search.h) over a net, the uniform evaluator
// or random playouts.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/param_visitor.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "mcts/search_params.h"
#include "play/player.h"
#include "play/spec.h"

namespace loa {

// The engine's play-time levers that won at equal time (docs/ENGINE.md):
// the policy temperature (SearchParams::policy_temperature) 1.4 beat the
// net's raw priors by +74 +- 48 at 0.1 s a move, and four leaves a call
// (leaves_per_batch) beat one by +51 +- 37 on top of it.
constexpr float kEnginePolicyTemperature = 1.4f;
constexpr int kEngineLeavesPerBatch = 4;

// Returns the search parameters of a player: `base` (the defaults, or a
// run's mcts section) with the engine's levers (kEngine* above),
// no noise, no move sampling, no playout caps and no forced playouts (it
// plays its best).
SearchParams EngineSearchParams(SearchParams base = SearchParams());

// The solver at play time (docs/ENGINE.md, "The solver probe"): before its
// search, where the board holds at most `pieces` pieces or the last
// search's value was at least `value` either way, the player runs df-pn
// (solve/dfpn.h) for at most `nodes` positions and half the move's time;
// a proven win is played at once, else the search runs in the time left.
struct ProbeSettings {
  int64_t nodes = 0;  // 0: no probe
  int pieces = 10;
  double value = 0.9;
  void Visit(ParamVisitor& v);
};

// Returns a player that runs the search over `evaluator` within `limits`
// (a timed clock overrides the time; 800 playouts when neither is given);
// on_seed, when set, receives the match's seeds; probe, the solver at play
// time. Throws loa::Error for parameters out of range.
std::unique_ptr<Player> MakeSearchPlayer(std::string name, std::shared_ptr<Evaluator> evaluator,
                                         const SearchParams& params, const SearchLimits& limits,
                                         std::function<void(uint64_t)> on_seed = {}, ProbeSettings probe = {});

// The shipped nets (nets/README.md), one a board size: the file under
// nets/ that mcts players search on that board when they name no net.
struct ShippedNet {
  int size;
  const char* file;
};
inline constexpr ShippedNet kShippedNets[] = {{8, "default.safetensors"}, {6, "six.safetensors"}};

// Returns the path of the shipped net of the board of `size` (whether the
// file is there or not), "" where none ships for it: in $LOAZ_NETS when set,
// else the bundle's own nets/ (InstalledFile), else the source's.
std::string ShippedNetPath(int size);

// The net that mcts players search with on 8x8 when none is named:
// $LOAZ_NET when set, else the shipped 8x8 net, ShippedNetPath(8).
std::string DefaultNetPath();

// The engine's player when none is named (loaz gtp, loaz serve):
// "mcts:time=1,threads=T" with the default net, T the machine's cores up to 2
// (threads=2 beat threads=1 on a 2-core machine at equal time, DESIGN.md).
std::string DefaultEngineSpec();

// Returns the spec of the engine playing the net at `net` (an export, or a
// checkpoint with LibTorch) with `playouts` a move. Throws ParseError when
// the path holds what a spec cannot (',' or '=' or a newline).
std::string NetPlayerSpec(const std::string& net, int playouts);

// "mcts:net=FILE[,playouts=N][,time=S][,threads=T]" or
// "mcts:evaluator=uniform,...": the engine's search. Keys (`loaz config`
// lists them with their ranges and help):
//   net=FILE            an export (.safetensors) or checkpoint (.pt); when
//                       neither net= nor evaluator= is given, $LOAZ_NET, else
//                       each board's shipped net (ShippedNetPath; a board
//                       without one is not played)
//   evaluator=net|uniform  (net when net= is given)
//   playouts=N          root visits per move (800 when neither limit is given)
//   time=S              seconds per move; a timed clock overrides it
//   every field of SearchParams (mcts/search_params.cpp: threads, leaves_per_batch,
//   cpuct_init, solver, reuse_tree, ...) and of NetEvaluatorOptions
//   (net/net_evaluator.cpp: device, backend, inference_threads,
//   cache_entries, ...) under its declared key.
// Searches with `shared` when given (MakeMctsEvaluator of a spec that differs
// at most in its limits), else with an evaluator of its own. Throws
// ParseError naming the key, loa::Error naming a bad net file.
std::unique_ptr<Player> MakeMctsPlayer(const PlayerSpec& spec, std::shared_ptr<Evaluator> shared = nullptr);

// Returns the evaluator of an mcts spec (thread-safe): what
// MakeSharedEvaluator gives. Throws as MakeMctsPlayer does.
std::shared_ptr<Evaluator> MakeMctsEvaluator(const PlayerSpec& spec);

// Reads and checks an mcts spec as MakeMctsPlayer does, and that its net
// is a file, without loading it (CheckPlayerSpec).
void CheckMctsSpec(const PlayerSpec& spec);

// The keys MakeMctsPlayer reads, from their declarations (`loaz config`).
std::vector<ParamInfo> MctsPlayerKeys();

}  // namespace loa
