#include "app/bench_util.h"

#include <ctime>
#include <fstream>

#include "core/game.h"
#include "core/random_play.h"
#include "net/model.h"
#include "train/losses.h"

namespace loa::app {

double ProcessCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return load;
}

double SearchPlayoutsPerSecond(Evaluator& evaluator, int threads, SearchLimits limits, bool cpu_time, int64_t* done,
                               SearchParams params) {
  params.threads = threads;
  params.reuse_tree = false;
  Search search(&evaluator, params);
  limits.early_stop = false;
  Timer timer(cpu_time);
  const SearchResult result = search.Run(Game(), limits);
  *done = result.playouts;
  return result.playouts / timer.Seconds();
}

train::Batch RandomBatch(int n, InputFeatures features) {
  train::Batch batch;
  batch.features = features;
  batch.Resize(n);
  const std::vector<Position> positions = RandomPositions(n, 4242);
  EncodePositions(positions.data(), n, batch.planes.data(), features);
  for (int i = 0; i < n; ++i) {
    MoveList moves;
    positions[i].GenerateMoves(moves);
    float* policy = batch.policy.data() + std::size_t(i) * kPolicySize;
    float* mask = batch.legal_mask.data() + std::size_t(i) * kPolicySize;
    std::fill(mask, mask + kPolicySize, train::kIllegalLogit);
    for (Move m : moves) {
      policy[PolicyIndexOf(m)] = 1.0f / float(moves.size());
      mask[PolicyIndexOf(m)] = 0.0f;
    }
    batch.wdl[std::size_t(i) * 3 + i % 3] = 1.0f;
    batch.moves_left[i] = 0.5f;
  }
  return batch;
}

double TrainStepRate(const NetConfig& config, const train::Batch& batch, const char* precision,
                     const torch::Device& device, double seconds, bool cpu_time, double* loss) {
  torch::manual_seed(1);
  LoaNet model(config);
  model->to(device);
  model->train();
  run::TrainConfig c;
  c.precision = precision;
  auto optimizer = train::MakeOptimizer(c, model);
  auto step = [&] {
    optimizer->zero_grad();
    train::Losses l = train::ComputeLosses(model, batch, c, 0.0, device);
    l.total.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), c.grad_clip);
    optimizer->step();
    return l.policy + l.value;
  };
  step();  // warm-up: kernels chosen, buffers allocated
  long steps = 0;
  Timer timer(cpu_time);
  do {
    *loss = step();
    ++steps;
  } while (timer.WallSeconds() < seconds || steps < 3);
  return steps * double(batch.size) / timer.Seconds();
}

double TrainSamplesPerSecond(const NetConfig& config, const train::Batch& batch, double seconds, bool cpu_time,
                             double* loss) {
  return TrainStepRate(config, batch, "fp32", torch::Device(torch::kCPU), seconds, cpu_time, loss);
}

}  // namespace loa::app
