#include "play/engine_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "alphabeta/search_types.h"
#include "core/error.h"
#include "play/spec.h"

namespace loa {
namespace {

// How often a running search reports what it has found.
constexpr std::chrono::milliseconds kReportPeriod{1000};

}  // namespace

std::string EnginePlayer::Spec() const {
  const PlayerSpec spec = PlayerSpec::Parse(spec_);
  std::string text = spec.text();
  if (threads_ > 0 && (spec.kind() == "mcts" || spec.kind() == "ab"))
    text = PlayerSpec::Parse(text).TextWith({"threads"}, "threads=" + std::to_string(threads_));
  if (!net_.empty() && spec.kind() == "mcts") text = PlayerSpec::Parse(text).TextWith({"net"}, "net=" + net_);
  return text;
}

Player& EnginePlayer::Get() {
  const std::string spec = Spec();
  if (!player_ || spec != made_from_) {
    player_ = MakePlayer(spec);  // throws naming the spec; the old player stays
    made_from_ = spec;
    player_->NewGame();
  }
  return *player_;
}

void EnginePlayer::SetSpec(const std::string& spec) {
  const std::string old = spec_;
  spec_ = spec;
  try {
    Get();
  } catch (const Error&) {
    spec_ = old;
    throw;
  }
}

void EnginePlayer::NewGame() {
  if (player_) player_->NewGame();
}

int EnginePlayer::SpecThreads() const { return int(PlayerSpec::Parse(spec_).GetInt("threads", 1, 1, 256)); }

int ScoreCentipawns(const MoveAnalysis& a, int* mate_moves) {
  *mate_moves = 0;
  if (!a.top.empty()) {
    const double q = std::clamp(a.value, -1.0, 1.0);
    return int(std::lround(std::clamp(90 * std::tan(1.5637541897 * q), -12800.0, 12800.0)));
  }
  if (ab::IsDecisiveScore(a.score)) {
    const int plies = ab::kWinScore - std::abs(a.score);
    *mate_moves = a.score > 0 ? (plies + 1) / 2 : -(plies / 2);
  }
  return a.score;
}

Move SearchWithin(Player& player, const Game& game, const MoveLimits& limits,
                  const std::function<void(const std::string&)>& note) {
  if (game.over()) return Move();
  Move move;
  try {
    if (limits.infinite) {
      move = player.Analyse(game, 1e9, limits.nodes);
    } else if (limits.movetime > 0 || limits.nodes > 0) {
      move = player.ChooseMoveWithin(game, limits.movetime, limits.nodes);
    } else {
      move = player.ChooseMove(game, limits.clock);
    }
  } catch (const Error& e) {
    note(e.what());
  }
  if (move.is_null() || !game.position().IsLegal(move)) {  // stopped before it found one, or failed
    MoveList moves;
    game.LegalMoves(moves);
    move = moves.size() > 0 ? moves[0] : Move();
  }
  return move;
}

void EngineSearch::Start(Player& player, const Game& game, const MoveLimits& limits, Callbacks callbacks) {
  Stop();
  player_ = &player;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    searching_ = true;
  }
  stop_requested_ = false;
  search_ = std::thread([this, &player, game, limits, callbacks] {
    const Move move = SearchWithin(player, game, limits, callbacks.note);
    const MoveAnalysis analysis = game.over() ? MoveAnalysis() : player.LastAnalysis();
    std::unique_lock<std::mutex> lock(mutex_);
    if (limits.infinite) finished_.wait(lock, [this] { return stop_requested_.load(); });
    lock.unlock();
    callbacks.done(move, analysis);
    lock.lock();
    searching_ = false;
    finished_.notify_all();
  });
  reporter_ = std::thread([this, &player, report = callbacks.report] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!finished_.wait_for(lock, kReportPeriod, [this] { return !searching_; })) {
      lock.unlock();
      if (report) report(player.CurrentAnalysis());
      lock.lock();
    }
  });
}

bool EngineSearch::running() {
  std::lock_guard<std::mutex> lock(mutex_);
  return searching_;
}

void EngineSearch::Stop() {
  if (!search_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stop_requested_ = true;
    finished_.notify_all();
    // Stop until it has answered: a stop that came before the search began would be lost.
    while (searching_) {
      lock.unlock();
      player_->Stop();
      lock.lock();
      finished_.wait_for(lock, std::chrono::milliseconds(10), [this] { return !searching_; });
    }
  }
  search_.join();
  reporter_.join();
}

}  // namespace loa
