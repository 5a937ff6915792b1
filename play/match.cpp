#include "play/match.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "core/notation.h"
#include "core/param_visitor.h"
#include "core/random.h"
#include "core/record.h"
#include "play/openings.h"
#include "play/player_kinds.h"

namespace loa {
namespace {

// What the worker threads share, under its mutex.
struct MatchState {
  std::mutex mutex;
  int next_game = 0;
  std::vector<bool> recorded;  // games read back from out_dir (resume): not played again
  bool stop = false;
  std::exception_ptr error;
  MatchResult result;
};

std::string RecordPath(const std::string& dir, int index) {
  char name[32];
  std::snprintf(name, sizeof(name), "game_%06d.txt", index + 1);
  return (std::filesystem::path(dir) / name).string();
}

// The tags of game `index`'s record; resume compares them with a record found.
Tags RecordTags(const MatchConfig& config, const Openings& openings, int index, const std::string& a_name,
                const std::string& b_name) {
  const bool a_is_black = index % 2 == 0;
  Tags tags = {{"Event", "loaz match"},
               {"Round", std::to_string(index + 1)},
               {"Black", a_is_black ? a_name : b_name},
               {"White", a_is_black ? b_name : a_name},
               {"Opening", openings.Describe(index / 2)},
               {"Seed", std::to_string(config.seed)}};
  if (config.clock_seconds > 0)
    tags.push_back({"TimeControl", FormatDouble(config.clock_seconds) +
                                       (config.clock_increment > 0 ? "+" + FormatDouble(config.clock_increment) : "")});
  return tags;
}

// Appends a game with its record's tags to the match's PGN file in one
// write (O_APPEND), so that a match killed at any moment leaves whole games.
void AppendPgn(const MatchConfig& config, const Game& game, const Tags& tags) {
  const std::string text = FormatCutechessPgn(game, tags) + "\n";
  const int fd = ::open(config.pgn_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError("--pgn " + config.pgn_path + ": cannot open: " + std::strerror(errno));
  const ssize_t written = ::write(fd, text.data(), text.size());
  const int saved = errno;
  ::close(fd);
  if (written != ssize_t(text.size()))
    throw IoError("--pgn " + config.pgn_path + ": cannot write: " + std::strerror(written < 0 ? saved : ENOSPC));
}

// Game `index` as a match counts it.
MatchGame Summarise(const Game& game, int index) {
  MatchGame summary;
  summary.index = index;
  summary.a_is_black = index % 2 == 0;
  summary.result = game.result();
  summary.reason = game.reason();
  summary.plies = game.ply();
  summary.a_score = game.result() == Result::kDraw                                ? 0.5
                    : (game.result() == Result::kBlackWins) == summary.a_is_black ? 1.0
                                                                                  : 0.0;
  return summary;
}

// Plays game `index` between a and b from its opening and returns it.
Game PlayGame(const MatchConfig& config, const Openings& openings, int index, Player& a, Player& b) {
  Game game = openings.Get(index / 2, config.seed);
  const bool a_is_black = index % 2 == 0;
  a.NewGame();
  b.NewGame();
  a.SetSeed(MixSeed(config.seed, 2 * uint64_t(index)));
  b.SetSeed(MixSeed(config.seed, 2 * uint64_t(index) + 1));
  double left[2] = {config.clock_seconds, config.clock_seconds};  // by colour
  while (!game.over()) {
    const Color side = game.position().side_to_move();
    Player& player = (side == kBlack) == a_is_black ? a : b;
    Clock clock;
    if (config.clock_seconds > 0) {
      clock.main_seconds = left[side];
      clock.increment_seconds = config.clock_increment;
      clock.opponent_seconds = left[Opponent(side)];
    }
    const auto start = std::chrono::steady_clock::now();
    Move move;
    try {
      move = player.ChooseMove(game, clock);
    } catch (const PlayerTimeout&) {
      if (!config.forfeit_on_timeout) throw;
      game.Forfeit(side);
      break;
    }
    if (config.clock_seconds > 0) {
      left[side] -= std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (left[side] < 0) {  // the flag fell: a loss on time
        game.Forfeit(side);
        break;
      }
      left[side] += config.clock_increment;
    }
    if (move.is_null() || !game.position().IsLegal(move))
      throw Error("match game " + std::to_string(index + 1) + ": player '" + player.name() + "' chose " +
                  (move.is_null() ? "no move" : "the illegal move " + FormatMove(move)) + " in position '" +
                  game.position().ToString() + "'");
    game.Play(move);
  }
  return game;
}

// Counts a finished game, runs the SPRT and reports progress; the caller holds the lock.
void Tally(const MatchConfig& config, MatchState& state, const MatchGame& game) {
  MatchResult& r = state.result;
  r.game_list.push_back(game);
  ++r.games;
  if (game.a_score == 1)
    ++r.wins;
  else if (game.a_score == 0)
    ++r.losses;
  else
    ++r.draws;
  r.elo = EstimateElo(r.wins, r.draws, r.losses);
  if (config.sprt) {
    r.llr = SprtLlr(r.wins, r.draws, r.losses, config.sprt->elo0, config.sprt->elo1);
    if (r.decision == SprtDecision::kContinue) {
      r.decision = SprtDecide(r.llr, *config.sprt);
      if (r.decision != SprtDecision::kContinue) {
        state.stop = true;
        r.decided_after = r.games;
        r.decided_llr = r.llr;
      }
    }
  }
  if (config.on_progress) {
    MatchProgress progress;
    progress.games_done = r.games;
    progress.games_total = config.games;
    progress.wins = r.wins;
    progress.draws = r.draws;
    progress.losses = r.losses;
    progress.elo = r.elo;
    progress.sprt = config.sprt.has_value();
    progress.llr = r.llr;
    config.on_progress(progress);
  }
}

// Counts the games that out_dir already records (resume); a record of
// another match there is an error naming it, as is an unfinished game.
void ReadRecordedGames(const MatchConfig& config, const Openings& openings, MatchState& state) {
  for (int index = 0; index < config.games; ++index) {
    const std::string path = RecordPath(config.out_dir, index);
    if (!std::filesystem::exists(path)) continue;
    const Record record = ParseRecord(ReadFile(path), path);
    for (const auto& [name, value] : RecordTags(config, openings, index, state.result.a, state.result.b))
      if (TagValue(record.tags, name) != value)
        throw ParseError(path + ": [" + name + " \"" + Excerpt(TagValue(record.tags, name), 60) +
                         "\"] is not this match's \"" + Excerpt(value, 60) +
                         "\" (--resume counts only its own games; name another --out)");
    if (!(record.rules == config.rules))
      throw ParseError(path + ": played under other rules (" + record.rules.ToString() + ")");
    const Game game = ReplayRecord(record, config.rules, path);
    if (!game.over()) throw ParseError(path + ": the game has no result");
    state.recorded[index] = true;
    ++state.result.resumed;
    Tally(config, state, Summarise(game, index));
  }
}

void Worker(const MatchConfig& config, const Openings& openings, MatchState& state, std::unique_ptr<Player> a,
            std::unique_ptr<Player> b) {
  try {
    if (!a) a = config.make_a();
    if (!b) b = config.make_b();
    for (;;) {
      int index;
      {
        std::lock_guard<std::mutex> lock(state.mutex);
        while (state.next_game < config.games && state.recorded[state.next_game]) ++state.next_game;
        if (state.stop || state.next_game >= config.games) return;
        index = state.next_game++;
      }
      const Game game = PlayGame(config, openings, index, *a, *b);
      const Tags tags = RecordTags(config, openings, index, a->name(), b->name());
      if (!config.out_dir.empty()) WriteFileAtomic(RecordPath(config.out_dir, index), FormatRecord(game, tags));
      std::lock_guard<std::mutex> lock(state.mutex);
      if (!config.pgn_path.empty()) AppendPgn(config, game, tags);
      Tally(config, state, Summarise(game, index));
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (!state.error) state.error = std::current_exception();
    state.stop = true;
  }
}

}  // namespace

MatchResult RunMatch(const MatchConfig& input) {
  MatchConfig config = input;
  if (config.games < 1) throw Error("match: --games must be at least 1");
  if (config.threads < 1) throw Error("match: --threads must be at least 1");
  if (config.resume && config.out_dir.empty()) throw Error("match: --resume needs --out, the folder of the records");
  if (!config.make_a) config.make_a = [spec = config.player_a] { return MakePlayer(spec); };
  if (!config.make_b) config.make_b = [spec = config.player_b] { return MakePlayer(spec); };
  const Openings openings(config.openings, config.rules);
  if (!config.out_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(config.out_dir, error);
    if (error) throw IoError("match: cannot create " + config.out_dir + ": " + error.message());
  }
  // The first pair is made here, so that a bad spec fails before any thread starts.
  std::unique_ptr<Player> first_a = config.make_a(), first_b = config.make_b();
  for (const Player* player : {first_a.get(), first_b.get()})
    if (!player->PlaysBoardSize(config.rules.size))
      throw Error("match: " + player->name() + " does not play the " + std::to_string(config.rules.size) + "x" +
                  std::to_string(config.rules.size) + " board (a net plays the board it was trained on)");
  MatchState state;
  state.result.a = first_a->name();
  state.result.b = first_b->name();
  state.result.sprt = config.sprt;
  state.recorded.assign(config.games, false);
  if (config.resume) ReadRecordedGames(config, openings, state);
  const int threads = std::min(config.threads, config.games);
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t)
    workers.emplace_back(Worker, std::cref(config), std::cref(openings), std::ref(state), nullptr, nullptr);
  Worker(config, openings, state, std::move(first_a), std::move(first_b));
  for (std::thread& w : workers) w.join();
  if (state.error) std::rethrow_exception(state.error);
  MatchResult result = std::move(state.result);
  std::sort(result.game_list.begin(), result.game_list.end(),
            [](const MatchGame& x, const MatchGame& y) { return x.index < y.index; });
  return result;
}

nlohmann::ordered_json MatchResult::ToJson() const {
  nlohmann::ordered_json j = {{"a", a},
                              {"b", b},
                              {"games", games},
                              {"wins", wins},
                              {"draws", draws},
                              {"losses", losses},
                              {"score", elo.score},
                              {"elo", elo.elo},
                              {"elo_ci95", elo.ci95}};
  // The baseline's version of each `ab` player: `ab:` without version= is
  // version 1 in summaries written before version 2 existed (docs/BASELINE.md).
  for (const auto& [key, spec] : {std::pair<const char*, const std::string&>{"a_ab_version", a}, {"b_ab_version", b}})
    if (const int version = AlphaBetaVersion(spec)) j[key] = version;
  if (sprt) {
    const char* names[] = {"continue", "H0", "H1"};
    double lower, upper;
    SprtBounds(*sprt, lower, upper);
    j["sprt"] = {
        {"elo0", sprt->elo0}, {"elo1", sprt->elo1}, {"alpha", sprt->alpha}, {"beta", sprt->beta},
        {"llr", llr},         {"lower", lower},     {"upper", upper},       {"decision", names[int(decision)]}};
    if (decision != SprtDecision::kContinue) {
      j["sprt"]["decided_after"] = decided_after;
      j["sprt"]["decided_llr"] = decided_llr;
    }
  }
  return j;
}

std::string FormatProgress(const MatchProgress& p) {
  char line[200];
  std::snprintf(line, sizeof(line), "games %d/%d  +%d =%d -%d  score %.1f%%  Elo %+.0f +- %.0f", p.games_done,
                p.games_total, p.wins, p.draws, p.losses, 100 * p.elo.score, p.elo.elo, p.elo.ci95);
  std::string text = line;
  if (p.sprt) {
    std::snprintf(line, sizeof(line), "  LLR %.2f", p.llr);
    text += line;
  }
  return text;
}

}  // namespace loa
