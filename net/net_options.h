#pragma once
// How to run a net: the options every backend and the entry point
// (net/net_evaluator.h) take, at the bottom of net/ so that the backends'
// table and each backend read them without the entry point. Visit and
// CudaPrecision are defined in net/net_evaluator.cpp, beside the table's
// choices (net/backends.h).

#include <cstddef>
#include <optional>
#include <string>

namespace loa {

class ParamVisitor;

// How to run a net. Every field has a working default for one CPU search.
struct NetEvaluatorOptions {
  // "cpu", "cuda" or "auto" (cuda when LibTorch sees a GPU, else cpu).
  std::string device = "cpu";
  // Intra-op threads of the forward pass (torch::set_num_threads; the cpu backend's OpenMP chunks).
  int inference_threads = 1;
  // The largest batch one forward pass takes (the batch server's,
  // mcts/batch_server.h); larger calls are split.
  int max_batch = 256;
  // Entries of the NN cache keyed by position hash; 0 turns the cache off.
  std::size_t cache_entries = 1 << 18;
  // A row of the backends' table (net/backends.h: "cpu", the project's
  // forward pass, or "torch", LibTorch's; "eigen" is read as "cpu"), or
  // "auto": the row of highest priority that runs on the device (cpu on the
  // cpu, torch on cuda). On the cpu the own pass is as fast as LibTorch at
  // batch 256 and faster at batch 1 (`loaz bench net`, docs/INFERENCE.md).
  std::string backend = "auto";
  // How long (microseconds) the LibTorch evaluator waits for requests from
  // other threads to fill a batch before it runs what it has.
  int batch_wait_us = 200;
  // Evaluate each position under this many of the 8 board symmetries and
  // average (net/symmetric_evaluator.h); 1: as it stands.
  int symmetries = 1;
  // The forward pass's arithmetic, one vocabulary for both devices: on the
  // cpu "fp32" or "int8" (the trunk's convolutions, net/cpu_net.h), on cuda
  // "fp32", "bf16" or "fp16"; "auto" is int8 on a cpu with AVX2 (else
  // fp32) and bf16 on cuda. A precision of the other device is an error.
  std::string precision = "auto";
  // The key of cuda's precision before `precision` took both devices,
  // still read: "auto" (the default) leaves it to `precision`.
  std::string cuda_precision = "auto";

  // Not config keys: how LibTorch lays out and overlaps its work, for
  // `loaz bench` and tests to compare (the defaults are the measured best,
  // docs/HARDWARE.md).
  // Forward passes in flight at once (the batch server's slots), each with
  // its own input buffer: while one waits on the GPU the next encodes and
  // queues its batch. 0: on cuda inference_threads of them; on the cpu one
  // for LibTorch, and one a core for the project's own pass.
  int batches_in_flight = 0;
  // LibTorch's activations and convolution weights in channels-last (NHWC)
  // memory, the layout of the GPU's tensor-core convolutions. Unset: on
  // cuda, not on the cpu.
  std::optional<bool> channels_last;
  // On cuda, each padded batch shape's forward pass captured once as a CUDA
  // graph and replayed (net/cuda_graphs.h): one launch a pass instead of one
  // a layer. Unset: yes where the build has them (a LibTorch with CUDA).
  std::optional<bool> cuda_graphs;

  // Declares the fields (core/param_visitor.h) under the keys player specs and
  // the config's `selfplay` section use: device (unless with_device is
  // false: self-play runs on run.device), backend, inference_threads,
  // max_batch, cache_entries, batch_wait_us, symmetries, precision,
  // cuda_precision. The one declaration of each.
  void Visit(ParamVisitor& v, bool with_device = true);

  // The precision on cuda: "bf16", "fp16" or "fp32" (precision, else the
  // old cuda_precision, else bf16). Throws Error for int8.
  std::string CudaPrecision() const;
};

}  // namespace loa
