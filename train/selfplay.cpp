#include "train/selfplay.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include <signal.h>
#include <unistd.h>

#include "core/error.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/random.h"
#include "core/record.h"
#include "mcts/selfplay_driver.h"
#include "run/workers.h"
#include "train/checkpoint_store.h"
#include "train/game_samples.h"
#include "train/net_source.h"
#include "train/shard.h"
#include "train/stop.h"

namespace loa::train {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// How long a worker sleeps while it waits for the first checkpoint.
constexpr std::chrono::milliseconds kNoNetWait{500};

// selfplay.proof_nodes: each worker's solver table, and the unproven samples
// in a row (from a game's end back) after which ProveSamples stops.
constexpr int64_t kProofTableMb = 32;
constexpr int kProofGiveUp = 2;

}  // namespace

// The state of one worker thread: its shard and records in the making.
struct SelfPlay::Worker {
  int index = 0;
  std::string writer;  // NAME-wINDEX
  int64_t seq = 0;     // of the next shard
  uint64_t seed = 0;
  Shard shard;
  std::vector<std::pair<int, std::string>> records;  // game in the shard, record text
  // Playout games (resignation off) in which a side would have resigned.
  std::unordered_map<int64_t, Color> would_resign;
  int plies = 0, results[3] = {0, 0, 0}, resigned = 0, capped = 0;  // of the shard in the making
  int stage = 0;  // the step of the playouts schedule its driver searches with (SelfPlay::stage_)
  std::unique_ptr<solve::Solver> solver;  // with selfplay.proof_nodes > 0
};

struct SelfPlay::Shared {
  NetSource net;
  Shared(const run::RunDir& run, const NetEvaluatorOptions& options, bool uniform_first, run::Logger& log)
      : net(run, options, uniform_first, log) {}
};

SelfPlay::SelfPlay(run::RunContext& run, std::string name) : run_(run), name_(std::move(name)) {
  NetEvaluatorOptions options = run_.config.selfplay.evaluator;
  options.device = run_.config.run.device;
  shared_ = std::make_unique<Shared>(run_.dir, options, run_.config.selfplay.uniform_first, run_.log);
}

SelfPlay::~SelfPlay() = default;

Reconciled ReconcileSelfplay(const run::RunDir& run, const std::string& name, run::JsonLinesLog& metrics) {
  namespace fs = std::filesystem;
  Reconciled done;
  std::set<run::ShardName> shards;  // this process's
  for (const run::ShardFile& f : run.ListShards()) {
    const std::optional<run::ShardName> shard = run::ShardOfFile(f.name);
    if (shard && run::ProcessOfWriter(shard->writer) == name) shards.insert(*shard);
  }
  std::error_code error;
  for (fs::directory_iterator it(run.GamesDir(), error), end; !error && it != end; it.increment(error)) {
    const std::optional<run::ShardName> shard = run::ShardOfFile(it->path().filename().string());
    if (!shard || run::ProcessOfWriter(shard->writer) != name || shards.count(*shard)) continue;
    std::error_code ignored;
    done.records_removed += fs::remove(it->path(), ignored);
  }
  std::set<run::ShardName> reported;
  for (const nlohmann::json& event : run::ReadJsonLines(run.MetricsPath())) {
    const auto kind = event.find("event"), writer = event.find("writer"), seq = event.find("shard");
    if (kind != event.end() && *kind == "selfplay" && writer != event.end() && writer->is_string() &&
        seq != event.end() && seq->is_number_integer())
      reported.insert({writer->get<std::string>(), seq->get<int64_t>()});
  }
  for (const run::ShardName& shard : shards) {
    if (reported.count(shard)) continue;
    ShardCounts counts;
    try {
      counts = ReadShardCounts(run.ShardPath(shard));
    } catch (const loa::Error&) {
      continue;  // the trainer's feed warns about it and skips it
    }
    metrics.Write({{"event", "selfplay"},
                   {"writer", shard.writer},
                   {"shard", shard.seq},
                   {"shard_games", counts.games},
                   {"shard_samples", counts.samples},
                   {"reconciled", true}});
    ++done.metrics_added;
  }
  return done;
}

bool SelfPlay::WaitForTheName(const std::atomic<bool>& stop) {
  const std::string host = ThisHost();
  bool told = false;
  for (;;) {
    if (stop || StopRequested()) return false;
    const std::vector<run::WorkerBeat> beats = run::ReadWorkerBeats(run_.dir);
    const auto it = std::find_if(beats.begin(), beats.end(), [&](const run::WorkerBeat& b) { return b.name == name_; });
    if (it == beats.end() || run::LivenessAt(*it, run::UnixNow()) != run::WorkerLiveness::kAlive) return true;
    // This host's process that is gone (a kill -9 and a quick restart).
    if (it->host == host && (it->pid == ::getpid() || (::kill(pid_t(it->pid), 0) != 0 && errno == ESRCH))) return true;
    if (!told)
      run_.log.Info("self-play: another process named " + name_ + " (" + it->host + " pid " + std::to_string(it->pid) +
                    (it->job.empty() ? "" : " job " + it->job) + ") beat " +
                    std::to_string(std::lround(run::UnixNow() - it->time)) +
                    " s ago; waiting until it ends or goes stale");
    told = true;
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

void SelfPlay::Beat(bool ended) {
  run::WorkerBeat beat;
  beat.name = name_;
  beat.host = ThisHost();
  beat.pid = ::getpid();
  beat.job = run::BatchJobName();
  beat.started = started_unix_;
  beat.time = run::UnixNow();
  beat.games = games_.load();
  beat.positions = positions_.load();
  beat.positions_per_hour = double(beat.positions) / std::max(1e-9, (Now() - started_) / 3600);
  beat.net_step = shared_->net.step();
  beat.ended = ended;
  try {
    run::WriteWorkerBeat(run_.dir, beat);
  } catch (const IoError& e) {
    run_.log.Warn(std::string("self-play: heartbeat not written: ") + e.what());  // a full disk: play on
  }
}

void SelfPlay::Run(const std::atomic<bool>& stop) {
  if (!WaitForTheName(stop)) return;
  started_ = Now();
  started_unix_ = run::UnixNow();
  Beat(false);
  const Reconciled repaired = ReconcileSelfplay(run_.dir, name_, run_.metrics);
  if (repaired.records_removed > 0 || repaired.metrics_added > 0)
    run_.log.Info("self-play: after a crash, removed " + std::to_string(repaired.records_removed) +
                  " records of unwritten shards and logged " + std::to_string(repaired.metrics_added) +
                  " shards that had no selfplay event");
  for (const run::ShardFile& f : run_.dir.ListShards()) {
    try {
      games_at_start_ += ReadShardCounts(f.path).games;
    } catch (const loa::Error&) {
      // The trainer's feed warns about it.
    }
  }
  while (!shared_->net.Refresh() && shared_->net.step() < 0) {
    if (stop || StopRequested()) {
      Beat(true);
      return;
    }
    std::this_thread::sleep_for(kNoNetWait);  // a separate trainer has not written step 0 yet
  }
  NoteNetAge();
  run_.log.Info("self-play: " + std::to_string(run_.config.selfplay.workers) + " workers x " +
                std::to_string(run_.config.selfplay.games_per_worker) + " games, net of step " +
                std::to_string(shared_->net.step()) + ", " + std::to_string(Playouts()) + " playouts");
  std::vector<std::thread> threads;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (int i = 0; i < run_.config.selfplay.workers; ++i) {
    threads.emplace_back([&, i] {
      try {
        WorkerLoop(i, stop);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        RequestStop();
      }
    });
  }
  // The heartbeat, until the workers are done.
  std::atomic<bool> done{false};
  std::thread heart([&] {
    double last = Now();
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (Now() - last >= run::kHeartbeatSeconds) {
        Beat(false);
        last = Now();
      }
    }
  });
  for (std::thread& t : threads) t.join();
  done = true;
  heart.join();
  if (error) std::rethrow_exception(error);
  Beat(true);
}

void SelfPlay::WorkerLoop(int index, const std::atomic<bool>& stop) {
  Worker w;
  w.index = index;
  w.writer = run::WriterName(name_, index);
  w.seq = run_.dir.NextShardSeq(w.writer);
  // The same run directory state and config give the same games; a resumed
  // worker starts past its last shard, so it never replays old games.
  w.seed = Mix(uint64_t(run_.config.run.seed) ^ Mix(Fnv1a64(w.writer) ^ Mix(uint64_t(w.seq))));
  const run::SelfplayConfig& sc = run_.config.selfplay;
  SelfPlayGames plays;
  plays.parallel = sc.games_per_worker;
  plays.seed = w.seed;
  plays.random_opening_plies = sc.random_opening_plies;
  plays.tree_proofs = sc.tree_proofs;
  SelfPlayDriver driver(&shared_->net, run_.config.mcts, run_.config.rules, plays);
  driver.set_resign_check([&](const SelfPlayGame& g) {
    if (!WouldResign(g, sc.resign_threshold, sc.resign_consecutive)) return false;
    const bool playout = double(Mix(w.seed ^ Mix(uint64_t(g.index) + 1)) >> 11) * 0x1.0p-53 < sc.resign_playout_share;
    if (!playout) return true;
    w.would_resign.emplace(g.index, g.moves.back().position.side_to_move());
    return false;
  });
  double last_refresh = Now();
  int64_t evaluations_before = 0;
  std::vector<SelfPlayGame> finished;
  while (!stop && !StopRequested() && !reached_max_games_) {
    if (index == 0 && Now() - last_refresh >= sc.checkpoint_poll_seconds) {
      if (shared_->net.Refresh()) {
        run_.log.Info("self-play: now playing with the net of step " + std::to_string(shared_->net.step()));
        NoteNetAge();
      }
      last_refresh = Now();
    }
    if (const int stage = stage_.load(); stage != w.stage) {
      const StagePlayouts p = PlayoutsOf(stage);
      driver.set_playouts(p.full, p.cheap);
      w.stage = stage;
    }
    driver.Step(&finished);
    evaluations_ += driver.evaluations() - evaluations_before;
    evaluations_before = driver.evaluations();
    for (const SelfPlayGame& g : finished) AddGame(w, g);
    finished.clear();
  }
  WriteShard(w, true);
}

void SelfPlay::AddGame(Worker& w, const SelfPlayGame& g) {
  const run::SelfplayConfig& sc = run_.config.selfplay;
  const GameOutcome outcome = OutcomeOf(g);
  Rng rng(w.seed ^ Mix(uint64_t(g.index) + 2));
  std::vector<int8_t> proven;
  if (sc.tree_proofs > 0) {
    proven = RootProofs(g);
    tree_proofs_ += int64_t(g.tree_proofs.size());
  }
  if (sc.proof_nodes > 0) {
    if (!w.solver) w.solver = std::make_unique<solve::Solver>(kProofTableMb);
    const double started = Now();
    const std::vector<int8_t> solved = ProveSamples(g, w.solver.get(), sc.proof_nodes, kProofGiveUp);
    proof_micros_ += int64_t((Now() - started) * 1e6);
    proven_ += std::count_if(solved.begin(), solved.end(), [](int8_t v) { return v != kUnproven; });
    if (proven.empty())
      proven = solved;
    else
      MergeProofs(solved, &proven);
  }
  samples_ += AppendGame(g, outcome, &w.shard, sc.policy_surprise_weight, &rng, proven.empty() ? nullptr : &proven);
  const int game_index = w.shard.games - 1;
  positions_ += int64_t(g.moves.size());
  w.plies += int(g.moves.size());
  w.results[outcome.result == Result::kBlackWins ? 0 : outcome.result == Result::kWhiteWins ? 1 : 2]++;
  w.resigned += outcome.resigned;
  w.capped += outcome.capped;
  if (auto it = w.would_resign.find(g.index); it != w.would_resign.end()) {
    ++resign_checked_;
    if (outcome.result != WinFor(Opponent(it->second))) ++false_resigns_;
    w.would_resign.erase(it);
  }
  const int64_t total = ++games_;
  if (sc.record_every > 0 && total % sc.record_every == 0) {
    const std::string players = "net step " + std::to_string(shared_->net.step());
    Tags tags = {{"Event", run_.config.run.name + " self-play"},
                 {"Black", players},
                 {"White", players},
                 {"Round", std::to_string(g.index)}};
    if (outcome.resigned)
      tags.push_back({"Resigned", g.moves.back().position.side_to_move() == kBlack ? "black" : "white"});
    w.records.emplace_back(game_index, FormatRecord(g.game, tags));
  }
  if (sc.max_games > 0 && games_at_start_ + total >= sc.max_games) reached_max_games_ = true;
  if (w.shard.games >= sc.games_per_shard) WriteShard(w, false);
}

void SelfPlay::WriteShard(Worker& w, bool last) {
  if (w.shard.games == 0) return;
  // Records, then the shard (the commit point), then its event: a kill
  // between them leaves what ReconcileSelfplay repairs.
  const run::ShardName shard{w.writer, w.seq};
  for (const auto& [game, text] : w.records) WriteFileAtomic(run_.dir.GameRecordPath(shard, game), text);
  train::WriteShard(run_.dir.ShardPath(shard), w.shard);
  Report(w, w.shard.games, int(w.shard.samples.size()));
  if (last) run_.log.Info("self-play: wrote the last shard " + run_.dir.ShardPath(shard));
  ++w.seq;
  w.shard = Shard();
  w.records.clear();
  w.plies = w.resigned = w.capped = 0;
  w.results[0] = w.results[1] = w.results[2] = 0;
}

SelfPlay::StagePlayouts SelfPlay::PlayoutsOf(int stage) const {
  if (stage == 0) return {run_.config.mcts.playouts, run_.config.mcts.cheap_playouts};
  const run::PlayoutsStep& step = run_.config.selfplay.playouts_schedule[std::size_t(stage - 1)];
  return {step.full, step.cheap};
}

void SelfPlay::NoteNetAge() {
  const std::vector<run::PlayoutsStep>& schedule = run_.config.selfplay.playouts_schedule;
  if (schedule.empty()) return;
  const int64_t step = shared_->net.step();
  const double hours = step > 0 ? run::CheckpointHours(run_.dir, step) : 0.0;
  int stage = 0;
  while (stage < int(schedule.size()) && hours >= schedule[std::size_t(stage)].hours) ++stage;
  if (stage <= stage_.load()) return;
  stage_ = stage;
  const StagePlayouts p = PlayoutsOf(stage);
  char text[240];
  std::snprintf(text, sizeof text,
                "self-play: the net of step %lld has %.2f hours of run time (selfplay.playouts_schedule[%d].hours "
                "%g): searches now use %d playouts, cheap ones %d",
                (long long)step, hours, stage - 1, schedule[std::size_t(stage - 1)].hours, p.full, p.cheap);
  run_.log.Info(text);
}

int SelfPlay::Playouts() const { return PlayoutsOf(stage_.load()).full; }

void SelfPlay::Report(const Worker& w, int games, int samples) {
  const double hours = std::max(1e-9, (Now() - started_) / 3600);
  const int64_t checked = resign_checked_.load();
  run_.metrics.Write({{"event", "selfplay"},
                      {"writer", w.writer},
                      {"host", ThisHost()},
                      {"shard", w.seq},
                      {"net_step", shared_->net.step()},
                      {"playouts", Playouts()},
                      {"shard_games", games},
                      {"shard_samples", samples},
                      {"mean_plies", double(w.plies) / std::max(1, games)},
                      {"black_wins", w.results[0]},
                      {"white_wins", w.results[1]},
                      {"draws", w.results[2]},
                      {"resigned", w.resigned},
                      {"capped", w.capped},
                      {"games", games_.load()},
                      {"run_games", games_at_start_ + games_.load()},
                      {"positions", positions_.load()},
                      {"samples", samples_.load()},
                      {"games_per_hour", double(games_.load()) / hours},
                      {"positions_per_hour", double(positions_.load()) / hours},
                      {"evaluations_per_second", double(evaluations_.load()) / (hours * 3600)},
                      {"proven_positions", proven_.load()},
                      {"proof_seconds", double(proof_micros_.load()) * 1e-6},
                      {"tree_proofs", tree_proofs_.load()},
                      {"resign_playouts", checked},
                      {"false_resign_rate", checked > 0 ? double(false_resigns_.load()) / double(checked) : 0.0}});
}

}  // namespace loa::train
