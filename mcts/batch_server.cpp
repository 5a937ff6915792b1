#include "mcts/batch_server.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "core/error.h"

namespace loa {
namespace {

// A thread that queued a request within this many batches counts as
// active: the leader waits for the active threads before its deadline.
constexpr uint64_t kActiveWindow = 4;

}  // namespace

BatchServer::BatchServer(int slots, int max_batch, int batch_wait_us, RunBatch run)
    : slots_(slots), max_batch_(max_batch), batch_wait_us_(batch_wait_us), run_(std::move(run)) {
  if (slots < 1 || max_batch < 1 || batch_wait_us < 0)
    throw Error("batch server: slots and max_batch must be at least 1, batch_wait_us at least 0");
  for (int i = slots - 1; i >= 0; --i) free_slots_.push_back(i);
}

void BatchServer::Submit(Request& request) {
  std::unique_lock<std::mutex> lock(mutex_);
  request.done = false;
  request.error = nullptr;
  queue_.push_back(&request);
  last_request_[std::this_thread::get_id()] = batches_;
  changed_.notify_all();
  while (!request.done) {
    if (gathering_ > 0 || free_slots_.empty() || !InQueue(request)) {
      changed_.wait(lock);
      continue;
    }
    ++gathering_;
    const int slot = free_slots_.back();
    free_slots_.pop_back();
    WaitForActiveThreads(lock);
    std::vector<Request*> batch;
    int total = 0;
    while (!queue_.empty() && (batch.empty() || total + queue_.front()->count <= max_batch_)) {
      total += queue_.front()->count;
      batch.push_back(queue_.front());
      queue_.pop_front();
    }
    ++batches_;
    positions_run_ += total;
    requests_running_ += int(batch.size());
    --gathering_;
    changed_.notify_all();
    lock.unlock();
    std::exception_ptr error;
    try {
      run_(batch, slot);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    for (Request* r : batch) {
      r->error = error;
      r->done = true;
    }
    requests_running_ -= int(batch.size());
    free_slots_.push_back(slot);
    changed_.notify_all();
  }
  if (request.error) std::rethrow_exception(request.error);
}

bool BatchServer::InQueue(const Request& request) const {
  return std::find(queue_.begin(), queue_.end(), &request) != queue_.end();
}

void BatchServer::WaitForActiveThreads(std::unique_lock<std::mutex>& lock) {
  if (batch_wait_us_ == 0) return;
  for (auto it = last_request_.begin(); it != last_request_.end();)
    it = it->second + kActiveWindow < batches_ ? last_request_.erase(it) : std::next(it);
  const std::size_t active = last_request_.size();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(batch_wait_us_);
  auto queued_positions = [&] {
    int n = 0;
    for (const Request* r : queue_) n += r->count;
    return n;
  };
  while (queue_.size() + std::size_t(requests_running_) < active && queued_positions() < max_batch_) {
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) break;
  }
}

void BatchServer::Counters(long* batches, long* positions) const {
  std::lock_guard<std::mutex> lock(mutex_);
  *batches = long(batches_);
  *positions = positions_run_;
}

int BatchServer::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return int(queue_.size());
}

ServedEvaluator::ServedEvaluator(std::unique_ptr<Evaluator> inner, int slots, int max_batch, int batch_wait_us)
    : inner_(std::move(inner)),
      buffers_(std::size_t(std::max(1, slots))),
      server_(slots, max_batch, batch_wait_us,
              [this](const std::vector<BatchServer::Request*>& batch, int slot) { Run(batch, slot); }) {}

void ServedEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  for (int first = 0; first < count; first += server_.max_batch()) {
    Call call;
    call.count = std::min(server_.max_batch(), count - first);
    call.positions = positions + first;
    call.out = out + first;
    server_.Submit(call);
  }
}

void ServedEvaluator::Run(const std::vector<BatchServer::Request*>& batch, int slot) {
  if (batch.size() == 1) {
    const Call& call = static_cast<const Call&>(*batch[0]);
    inner_->Evaluate(call.positions, call.count, call.out);
    return;
  }
  Buffers& b = buffers_[std::size_t(slot)];
  b.positions.clear();
  for (const BatchServer::Request* r : batch) {
    const Call& call = static_cast<const Call&>(*r);
    b.positions.insert(b.positions.end(), call.positions, call.positions + call.count);
  }
  b.outputs.resize(b.positions.size());
  inner_->Evaluate(b.positions.data(), int(b.positions.size()), b.outputs.data());
  std::size_t row = 0;
  for (const BatchServer::Request* r : batch) {
    const Call& call = static_cast<const Call&>(*r);
    std::copy(b.outputs.begin() + std::ptrdiff_t(row), b.outputs.begin() + std::ptrdiff_t(row + call.count), call.out);
    row += std::size_t(call.count);
  }
}

int CpuServerSlots(int threads_per_pass) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, threads_per_pass));
}

}  // namespace loa
