#pragma once
// One queue in front of an evaluator's forward pass for every search that
// shares that evaluator (one a net: two nets in a match have two queues):
// the engine's threads and the self-play workers hand in their positions, and
// one caller at a time, the leader, takes what is queued as one batch and
// runs it while the next leader gathers (lc0's and KataGo's many search
// threads feeding one evaluator). The LibTorch evaluator runs its passes
// through it; ServedEvaluator puts it in front of any other evaluator (the
// project's own cpu pass).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "mcts/evaluator.h"

namespace loa {

class BatchServer {
 public:
  // One caller's share of a batch; a user derives its own with its data.
  struct Request {
    int count = 0;  // positions, at most max_batch
    // Set by the server once the request's batch has run (or failed).
    bool done = false;
    std::exception_ptr error;
  };
  // Runs one batch, requests in the order they were queued, their counts
  // summing to at most max_batch (or one request alone), on `slot`: an
  // index below `slots` that no other running batch holds, so that each
  // slot may keep its own buffers. Called without the server's lock, on the
  // leader's thread; an exception reaches every caller of the batch.
  using RunBatch = std::function<void(const std::vector<Request*>& batch, int slot)>;

  // slots: batches in flight at once (at least 1). batch_wait_us: how long
  // a leader waits for the other recently active callers that are not
  // waiting on a batch in flight to queue theirs (0: it runs what is
  // queued at once, the right thing where a free core can run a batch).
  BatchServer(int slots, int max_batch, int batch_wait_us, RunBatch run);

  // Queues request and returns when its batch has run: this caller's as a
  // leader, or another's. A caller becomes the leader when no other is
  // gathering and a slot is free. Rethrows the batch's exception.
  // Thread-safe.
  void Submit(Request& request);

  // How many batches ran and how many positions they held (their ratio is
  // the mean batch). Thread-safe.
  void Counters(long* batches, long* positions) const;

  // Requests waiting for a leader (for tests). Thread-safe.
  int queued() const;

  int slots() const { return slots_; }
  int max_batch() const { return max_batch_; }

 private:
  bool InQueue(const Request& request) const;
  void WaitForActiveThreads(std::unique_lock<std::mutex>& lock);

  const int slots_;
  const int max_batch_;
  const int batch_wait_us_;
  const RunBatch run_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Request*> queue_;
  std::vector<int> free_slots_;
  int gathering_ = 0;         // leaders gathering a batch (at most one)
  int requests_running_ = 0;  // requests taken into a batch, not yet done
  uint64_t batches_ = 0;
  long positions_run_ = 0;
  std::unordered_map<std::thread::id, uint64_t> last_request_;  // thread -> batch number
};

// Any evaluator behind a BatchServer: a batch of one caller's positions goes
// to the inner evaluator as it is (no copy), a batch of several callers'
// is copied into its slot's buffers and evaluated in one call. The inner
// evaluator's Evaluate must take calls from `slots` threads at once.
class ServedEvaluator : public Evaluator {
 public:
  ServedEvaluator(std::unique_ptr<Evaluator> inner, int slots, int max_batch, int batch_wait_us);

  // Splits count into requests of at most max_batch. Thread-safe.
  void Evaluate(const Position* positions, int count, EvalOutput* out) override;

  const BatchServer& server() const { return server_; }
  const Evaluator& inner() const { return *inner_; }
  bool PlaysBoardSize(int size) const override { return inner_->PlaysBoardSize(size); }

 private:
  struct Call : BatchServer::Request {
    const Position* positions = nullptr;
    EvalOutput* out = nullptr;
  };
  struct Buffers {
    std::vector<Position> positions;
    std::vector<EvalOutput> outputs;
  };
  void Run(const std::vector<BatchServer::Request*>& batch, int slot);

  std::unique_ptr<Evaluator> inner_;
  std::vector<Buffers> buffers_;  // one a slot
  BatchServer server_;
};

// The slots a cpu evaluator's server keeps: one a core for passes of
// `threads_per_pass` threads each (at least 1).
int CpuServerSlots(int threads_per_pass);

}  // namespace loa
