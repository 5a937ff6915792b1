#include "train/label.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/random.h"
#include "solve/dfpn.h"
#include "train/shard.h"

namespace loa::train {
namespace {

// A sample picked for the solver: its shard, its index there, and the proof.
struct Job {
  size_t shard = 0, sample = 0;
  solve::Outcome outcome = solve::Outcome::kUnknown;
  int plies = 0;
};

int8_t Signed(solve::Outcome o) { return o == solve::Outcome::kWin ? 1 : o == solve::Outcome::kLoss ? -1 : 0; }

// Solves each job's sample, shared out among opts.threads threads, each
// with its own table.
void SolveJobs(const std::vector<Shard>& shards, const LabelOptions& opts,
               const std::function<void(int64_t, int64_t)>& progress, std::vector<Job>* jobs_out) {
  std::vector<Job>& jobs = *jobs_out;
  Rules rules = opts.rules;
  rules.max_plies = 0;
  std::atomic<size_t> next{0};
  std::atomic<int64_t> solved{0};
  std::mutex progress_mutex;
  auto work = [&] {
    solve::Solver solver(opts.memory_mb);
    solve::SolveLimits limits;
    limits.nodes = opts.nodes;
    for (size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      Job& job = jobs[j];
      const solve::SolveResult r = solver.Solve(Game(rules, shards[job.shard].samples[job.sample].position()), limits);
      job.outcome = r.outcome;
      job.plies = r.proof_plies;
      const int64_t done = solved.fetch_add(1) + 1;
      if (progress && done % 1000 == 0) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress(done, int64_t(jobs.size()));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < opts.threads; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

}  // namespace

LabelCounts LabelShards(const run::RunDir& from, const std::string& to_selfplay, const LabelOptions& opts,
                        const std::function<void(int64_t, int64_t)>& progress, const std::string& control_selfplay) {
  LabelCounts counts;
  const std::vector<run::ShardFile> files = from.ListShards();
  if (files.empty()) throw Error(from.SelfplayDir() + ": no replay shards to label");
  std::vector<Shard> shards;
  shards.reserve(files.size());
  for (const run::ShardFile& f : files) {
    shards.push_back(ReadShard(f.path));
    counts.samples += int64_t(shards.back().samples.size());
  }

  // The draw: each sample with the same chance, a position once.
  Rng rng(opts.seed);
  const double chance = std::min(1.0, double(opts.positions) / double(std::max<int64_t>(1, counts.samples)));
  std::unordered_set<uint64_t> seen;
  std::vector<Job> jobs;
  for (size_t s = 0; s < shards.size(); ++s) {
    const std::optional<run::ShardName> name = run::ShardOfFile(files[s].name);
    for (size_t i = 0; i < shards[s].samples.size(); ++i) {
      const Sample& sample = shards[s].samples[i];
      const uint64_t hash = sample.position().hash();
      const std::string game =
          name ? std::filesystem::path(from.GameRecordPath(*name, sample.game)).stem().string() : std::string();
      if (opts.held_out_positions.count(hash) || (!game.empty() && opts.held_out_games.count(game))) {
        ++counts.held_out;
        continue;
      }
      if (rng.Uniform() >= chance || !seen.insert(hash).second) continue;
      jobs.push_back({s, i});
    }
  }
  counts.drawn = int64_t(jobs.size());

  SolveJobs(shards, opts, progress, &jobs);

  // The labelled shards: a shard's proven samples, the proof their outcome.
  std::filesystem::create_directories(to_selfplay);
  if (!control_selfplay.empty()) std::filesystem::create_directories(control_selfplay);
  std::vector<Shard> out(shards.size()), control(shards.size());
  for (const Job& job : jobs) {
    if (job.outcome == solve::Outcome::kUnknown) continue;
    ++counts.proven;
    const Shard& in = shards[job.shard];
    Sample sample = in.samples[job.sample];
    const int8_t proof = Signed(job.outcome);
    if (job.outcome != solve::Outcome::kDraw) {
      LabelCounts::Row& row = counts.rows[job.plies <= 1    ? 0
                                          : job.plies <= 5  ? 1
                                          : job.plies <= 9  ? 2
                                          : job.plies <= 13 ? 3
                                                            : 4];
      for (LabelCounts::Row* r : {&row, &counts.rows.back()}) {
        ++r->proven;
        r->against += sample.outcome != proof;
      }
    }
    // The sample into a shard of its own shard's games: its policy entries after the shard's others.
    auto append = [&](Shard& shard, const Sample& copy) {
      shard.games = in.games;
      shard.finals = in.finals;
      shard.AddFrom(in, size_t(job.sample), copy);
    };
    if (!control_selfplay.empty()) append(control[job.shard], sample);
    sample.outcome = proof;
    sample.root_value = float(proof);
    sample.flags |= kProven;
    append(out[job.shard], sample);
  }
  for (size_t s = 0; s < out.size(); ++s) {
    if (out[s].samples.empty()) continue;
    WriteShard(to_selfplay + "/" + files[s].name, out[s]);
    if (!control_selfplay.empty()) WriteShard(control_selfplay + "/" + files[s].name, control[s]);
    ++counts.shards;
  }
  return counts;
}

}  // namespace loa::train
