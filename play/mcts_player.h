#pragma once
// The engine: PUCT search over a net (or over the uniform evaluator).

#include <memory>

#include "play/player.h"
#include "play/spec.h"

namespace loa {

// "mcts:net=FILE[,playouts=N][,time=S][,threads=T]" or
// "mcts:evaluator=uniform,...": the engine's search (mcts/search.h). Keys:
//   net=FILE            an export (.safetensors) or checkpoint (.pt)
//   evaluator=net|uniform  (net when net= is given)
//   playouts=N          root visits per move (800 when neither limit is given)
//   time=S              seconds per move; a timed clock overrides it
//   threads=T           search threads (1)
//   batch=B             leaves one thread evaluates at once (1)
//   cpuct=C, solver=0|1, reuse=0|1   search settings (mcts/params.h defaults)
//   device=cpu|cuda|auto, backend=auto|eigen|torch, inference_threads=N,
//   cache=ENTRIES       how the net runs (net/net_evaluator.h defaults)
// Throws ParseError naming the key, loa::Error naming a bad net file.
std::unique_ptr<Player> MakeMctsPlayer(const PlayerSpec& spec);

}  // namespace loa
