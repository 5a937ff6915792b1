#pragma once
// The evaluator over a CpuNet (net/cpu_net.h): a pool of workspaces, a call
// of many positions split into chunks over OpenMP threads, and the cpu
// backend's factory that puts it behind a batch server.

#include <memory>
#include <vector>

#include "core/spin_lock.h"
#include "mcts/evaluator.h"
#include "net/cpu_net.h"

namespace loa {

// Evaluator over an CpuNet. Evaluate is thread-safe: each call takes a
// workspace from a pool, so concurrent calls run in parallel, one thread each;
// a single call of many positions is split over `threads` OpenMP threads.
struct NetEvaluatorOptions;

class CpuEvaluator : public Evaluator {
 public:
  // Builds the net from an export; threads >= 1 parallelises large batches.
  CpuEvaluator(const ExportedNet& net, int threads, Precision precision = Precision::kFp32);
  ~CpuEvaluator() override;

  void Evaluate(const Position* positions, int count, EvalOutput* out) override;

  const NetConfig& config() const { return net_.config(); }
  Precision precision() const { return net_.precision(); }
  // The board the net was trained on (its export's rules).
  int board_size() const { return board_size_; }
  bool PlaysBoardSize(int size) const override { return size == board_size_; }

 private:
  struct Slot;
  std::unique_ptr<Slot> Acquire();
  void Release(std::unique_ptr<Slot> slot);

  CpuNet net_;
  int board_size_;
  int threads_;
  SpinLock free_lock_;  // held for a push or pop of free_slots_
  std::vector<std::unique_ptr<Slot>> free_slots_;
};

// The cpu backend's factory (net/backends.cpp): a CpuEvaluator of net with
// options' inference_threads and precision, behind a BatchServer
// (mcts/batch_server.h: batches_in_flight slots, else one a core; batches
// of at most max_batch; no wait) of its own, which every search sharing
// this evaluator feeds, as LibTorch's evaluator has its own.
std::unique_ptr<Evaluator> MakeCpuNetEvaluator(const ExportedNet& net, const NetEvaluatorOptions& options);

}  // namespace loa
