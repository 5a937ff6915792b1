#pragma once
// The one entry point from a net file to an Evaluator: what the mcts player
// and self-play call. Sees no LibTorch, so its users compile fast.

#include <cstddef>
#include <memory>
#include <string>

#include "mcts/evaluator.h"

namespace loa {

class ParamVisitor;

// How to run a net. Every field has a working default for one CPU search.
struct NetEvaluatorOptions {
  // "cpu", "cuda" or "auto" (cuda when LibTorch sees a GPU, else cpu).
  std::string device = "cpu";
  // Intra-op threads of the forward pass (torch::set_num_threads, Eigen's pool).
  int inference_threads = 1;
  // The largest batch one LibTorch forward pass takes; larger calls are split.
  int max_batch = 256;
  // Entries of the NN cache keyed by position hash; 0 turns the cache off.
  std::size_t cache_entries = 1 << 18;
  // "auto", "cpu" or "torch" ("eigen", the old name of "cpu", is read as
  // it). cpu: the project's own forward pass (net/cpu_net.h: oneDNN trunk,
  // fp32 or int8, no LibTorch); torch: LibTorch's; auto: cpu on the cpu,
  // torch on cuda. On the cpu the own pass is as fast as LibTorch at batch
  // 256 and faster at batch 1 (`loaz bench net`, docs/INFERENCE.md).
  std::string backend = "auto";
  // How long (microseconds) the LibTorch evaluator waits for requests from
  // other threads to fill a batch before it runs what it has.
  int batch_wait_us = 200;
  // Evaluate each position under this many of the 8 board symmetries and
  // average (net/symmetric_evaluator.h); 1: as it stands.
  int symmetries = 1;
  // On the cpu (Eigen): the trunk convolutions in "fp32", "int8" or "auto"
  // (int8 where the processor has AVX2). net/cpu_net.h.
  std::string precision = "auto";
  // On CUDA: run the forward pass in "bf16", "fp16" or "fp32".
  std::string cuda_precision = "bf16";

  // Declares the fields (core/param_visitor.h) under the keys player specs and
  // the config's `selfplay` section use: device (unless with_device is
  // false: self-play runs on run.device), backend, inference_threads,
  // max_batch, cache_entries, batch_wait_us, symmetries, precision,
  // cuda_precision. The one declaration of each.
  void Visit(ParamVisitor& v, bool with_device = true);
};

// Loads a net file, an export (.safetensors) or a checkpoint (.pt), and returns
// an evaluator for it behind an NN cache. The result's Evaluate is thread-safe.
// Throws loa::Error naming the file when it is missing, truncated or of
// another architecture or encoder version, or when an option is out of range.
std::unique_ptr<Evaluator> MakeNetEvaluator(const std::string& file, const NetEvaluatorOptions& options);

}  // namespace loa
