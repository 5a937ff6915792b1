#pragma once
// The exported net on Eigen: batch norm folded into the convolutions, no
// LibTorch at play time. The CPU engine's fast path for small batches.

#include <memory>
#include <mutex>
#include <vector>

#include "mcts/evaluator.h"
#include "net/export.h"

namespace loa {

// The forward pass of an exported net. Immutable after construction.
class EigenNet {
 public:
  // Folds the batch norms of net (an export whose layout has been checked)
  // into its convolutions; keeps no reference to net.
  explicit EigenNet(const ExportedNet& net);
  ~EigenNet();

  const NetConfig& config() const { return config_; }

  // Scratch memory of one forward pass. Not thread-safe: one per thread.
  class Workspace;
  struct WorkspaceDeleter {
    void operator()(Workspace* workspace) const;
  };
  using WorkspacePtr = std::unique_ptr<Workspace, WorkspaceDeleter>;
  // Returns a workspace for this net; the caller owns it.
  WorkspacePtr NewWorkspace() const;

  // Runs count >= 1 encoded positions (count * kInputSize floats, NCHW) and
  // writes per position 512 policy logits, 3 WDL logits and the moves-left
  // output (0 without that head). Thread-safe with a workspace per thread.
  void Forward(const float* input, int count, float* policy, float* value, float* moves_left,
               Workspace& workspace) const;

 private:
  struct Layers;
  NetConfig config_;
  std::unique_ptr<Layers> layers_;
};

// Evaluator over an EigenNet. Evaluate is thread-safe: each call takes a
// workspace from a pool, so concurrent calls run in parallel, one thread each;
// a single call of many positions is split over `threads` OpenMP threads.
class EigenEvaluator : public Evaluator {
 public:
  // Builds the net from an export; threads >= 1 parallelises large batches.
  EigenEvaluator(const ExportedNet& net, int threads);
  ~EigenEvaluator() override;

  void Evaluate(const Position* positions, int count, EvalOutput* out) override;

  const NetConfig& config() const { return net_.config(); }

 private:
  struct Slot;
  std::unique_ptr<Slot> Acquire();
  void Release(std::unique_ptr<Slot> slot);

  EigenNet net_;
  int threads_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Slot>> free_slots_;
};

}  // namespace loa
