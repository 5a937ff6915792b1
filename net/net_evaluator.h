#pragma once
// The one entry point from a net file to an Evaluator: what the mcts player
// and self-play call. Sees no LibTorch, so its users compile fast.

#include <memory>
#include <string>

#include "mcts/evaluator.h"
#include "net/net_options.h"

namespace loa {

// Loads a net file, an export (.safetensors) or a checkpoint (.pt), and returns
// an evaluator for it behind an NN cache. The result's Evaluate is thread-safe.
// Throws loa::Error naming the file when it is missing, truncated or of
// another architecture or encoder version, or when an option is out of range.
std::unique_ptr<Evaluator> MakeNetEvaluator(const std::string& file, const NetEvaluatorOptions& options);

}  // namespace loa
