#include "net/cpu_evaluator.h"

#include <omp.h>

#include <algorithm>
#include <mutex>

#include "core/error.h"
#include "mcts/batch_server.h"
#include "net/encoder.h"
#include "net/net_options.h"

namespace loa {

// A workspace with the input and output buffers of one chunk.
struct CpuEvaluator::Slot {
  CpuNet::WorkspacePtr workspace;
  std::vector<float> input, policy, value, moves_left;
};

CpuEvaluator::CpuEvaluator(const ExportedNet& net, int threads, Precision precision)
    : net_(net, precision), board_size_(net.board_size()), threads_(threads) {
  if (threads < 1 || threads > 1024) throw Error("cpu evaluator: threads = " + std::to_string(threads));
}

CpuEvaluator::~CpuEvaluator() = default;

std::unique_ptr<CpuEvaluator::Slot> CpuEvaluator::Acquire() {
  {
    std::lock_guard<SpinLock> lock(free_lock_);
    if (!free_slots_.empty()) {
      std::unique_ptr<Slot> slot = std::move(free_slots_.back());
      free_slots_.pop_back();
      return slot;
    }
  }
  auto slot = std::make_unique<Slot>();
  slot->workspace = net_.NewWorkspace();
  slot->input.resize(std::size_t(kChunkPositions) * net_.config().input_planes() * kNumSquares);
  slot->policy.resize(std::size_t(kChunkPositions) * kPolicySize);
  slot->value.resize(kChunkPositions * 3);
  slot->moves_left.resize(kChunkPositions);
  return slot;
}

void CpuEvaluator::Release(std::unique_ptr<Slot> slot) {
  std::lock_guard<SpinLock> lock(free_lock_);
  free_slots_.push_back(std::move(slot));
}

void CpuEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  // Chunks of up to kChunkPositions, split evenly over the threads.
  const int threads = std::max(1, std::min(threads_, count));
  const int size = std::min(kChunkPositions, (count + threads - 1) / threads);
  const int chunks = (count + size - 1) / size;
  auto run_chunk = [&](Slot& slot, int chunk) {
    const int first = chunk * size, n = std::min(size, count - first);
    EncodePositions(positions + first, n, slot.input.data(), net_.config().features());
    net_.Forward(slot.input.data(), n, slot.policy.data(), slot.value.data(), slot.moves_left.data(), *slot.workspace);
    for (int i = 0; i < n; ++i)
      DecodeOutput(positions[first + i], slot.policy.data() + std::size_t(i) * kPolicySize, slot.value.data() + i * 3,
                   slot.moves_left[i], &out[first + i]);
  };
  if (threads <= 1) {
    const OneThreadTeam one_thread;
    std::unique_ptr<Slot> slot = Acquire();
    for (int chunk = 0; chunk < chunks; ++chunk) run_chunk(*slot, chunk);
    Release(std::move(slot));
    return;
  }
  std::vector<std::unique_ptr<Slot>> slots(threads);
  for (auto& slot : slots) slot = Acquire();
#pragma omp parallel num_threads(threads)
  {
    // Each thread of this team is a team of one for oneDNN, which otherwise
    // plans a kernel's work for more threads than its nested region has.
    const OneThreadTeam one_thread;
#pragma omp for schedule(static)
    for (int chunk = 0; chunk < chunks; ++chunk) run_chunk(*slots[omp_get_thread_num()], chunk);
  }
  for (auto& slot : slots) Release(std::move(slot));
}

std::unique_ptr<Evaluator> MakeCpuNetEvaluator(const ExportedNet& net, const NetEvaluatorOptions& options) {
  auto evaluator = std::make_unique<CpuEvaluator>(net, options.inference_threads, ResolvePrecision(options.precision));
  // Behind a batch server of its own, as LibTorch's evaluator is, one slot a core and
  // no wait: a caller with a free core runs its own positions at once, and
  // callers beyond the cores are gathered into the next pass.
  const int slots =
      options.batches_in_flight > 0 ? options.batches_in_flight : CpuServerSlots(options.inference_threads);
  return std::make_unique<ServedEvaluator>(std::move(evaluator), slots, options.max_batch, 0);
}

}  // namespace loa
