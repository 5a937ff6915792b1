// Matches: reproducible with a seed, colours swapped, records written and
// replayable, the SPRT stops, external engines play through the protocol.

#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/file_util.h"
#include "core/record.h"
#include "play/match.h"
#include "play/tournament.h"

namespace loa {
namespace {

MatchConfig SmallMatch(const std::string& a, const std::string& b, int games) {
  MatchConfig config;
  config.player_a = a;
  config.player_b = b;
  config.games = games;
  config.openings = "random:plies=4";
  config.seed = 7;
  return config;
}

// Returns the message of the E that running config's match throws, or
// "no error".
template <typename E = Error>
std::string MatchError(const MatchConfig& config) {
  try {
    RunMatch(config);
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("loaz_play_test_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

void ExpectSameGames(const MatchResult& x, const MatchResult& y) {
  ASSERT_EQ(x.game_list.size(), y.game_list.size());
  for (size_t i = 0; i < x.game_list.size(); ++i) {
    EXPECT_EQ(x.game_list[i].index, y.game_list[i].index);
    EXPECT_EQ(x.game_list[i].result, y.game_list[i].result);
    EXPECT_EQ(x.game_list[i].plies, y.game_list[i].plies);
  }
  EXPECT_EQ(x.wins, y.wins);
  EXPECT_EQ(x.draws, y.draws);
}

TEST(MatchTest, IsReproducibleWithASeed) {
  const MatchConfig config = SmallMatch("random", "greedy", 8);
  const MatchResult first = RunMatch(config), second = RunMatch(config);
  ExpectSameGames(first, second);
  MatchConfig threaded = config;
  threaded.threads = 3;
  ExpectSameGames(first, RunMatch(threaded));
  MatchConfig reseeded = config;
  reseeded.seed = 8;
  const MatchResult other = RunMatch(reseeded);
  bool differs = false;
  for (size_t i = 0; i < other.game_list.size(); ++i) differs |= other.game_list[i].plies != first.game_list[i].plies;
  EXPECT_TRUE(differs);
}

TEST(MatchTest, SwapsColoursAndWritesReplayableRecords) {
  MatchConfig config = SmallMatch("ab:depth=1", "random", 4);
  config.out_dir = TempDir("records");
  const MatchResult result = RunMatch(config);
  ASSERT_EQ(result.games, 4);
  EXPECT_EQ(result.wins + result.draws + result.losses, 4);
  for (const MatchGame& g : result.game_list) {
    EXPECT_EQ(g.a_is_black, g.index % 2 == 0);
    char name[32];
    std::snprintf(name, sizeof(name), "/game_%06d.txt", g.index + 1);
    const std::string path = config.out_dir + name;
    const Record record = ParseRecord(ReadFile(path), path);
    const Game game = ReplayRecord(record, record.rules, path);
    EXPECT_EQ(game.result(), g.result);
    EXPECT_EQ(game.ply(), g.plies);
    EXPECT_EQ(TagValue(record.tags, g.a_is_black ? "Black" : "White"), "ab:depth=1");
  }
  // The two games of an opening start alike.
  const Record first = ParseRecord(ReadFile(config.out_dir + "/game_000001.txt"), "1");
  const Record second = ParseRecord(ReadFile(config.out_dir + "/game_000002.txt"), "2");
  EXPECT_TRUE(std::equal(first.moves.begin(), first.moves.begin() + 4, second.moves.begin()));
  const nlohmann::ordered_json json = result.ToJson();
  for (const char* key : {"a", "b", "games", "wins", "draws", "losses", "score", "elo", "elo_ci95"})
    EXPECT_TRUE(json.contains(key)) << key;
}

TEST(MatchTest, ThePgnFileHoldsEachGameAsCutechessWritesIt) {
  MatchConfig config = SmallMatch("ab:depth=1", "random", 4);
  const std::string dir = TempDir("pgn");
  std::filesystem::create_directories(dir);
  config.pgn_path = dir + "/games.pgn";
  std::filesystem::remove(config.pgn_path);
  const MatchResult result = RunMatch(config);
  const std::string text = ReadFile(config.pgn_path);
  // Games one after another, each starting at its Event tag.
  std::vector<std::string> games;
  for (size_t at = text.find("[Event "); at != std::string::npos;) {
    const size_t next = text.find("[Event ", at + 1);
    games.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  ASSERT_EQ(games.size(), 4u) << text;
  for (const std::string& pgn : games) {
    const Record record = ParseRecord(pgn, config.pgn_path);
    EXPECT_EQ(TagValue(record.tags, "Variant"), "linesofaction");
    const int round = std::stoi(TagValue(record.tags, "Round"));
    const MatchGame& g = *std::find_if(result.game_list.begin(), result.game_list.end(),
                                       [&](const MatchGame& m) { return m.index == round - 1; });
    const Game game = ReplayRecord(record, record.rules, config.pgn_path);
    EXPECT_EQ(game.result(), g.result);
    EXPECT_EQ(game.ply(), g.plies);
  }
}

TEST(MatchTest, ResumeCountsTheRecordedGamesAndPlaysTheRest) {
  MatchConfig config = SmallMatch("random", "greedy", 6);
  config.out_dir = TempDir("resume");
  const MatchResult full = RunMatch(config);
  ASSERT_EQ(full.resumed, 0);
  const auto path = [&](int game) {
    char name[32];
    std::snprintf(name, sizeof(name), "/game_%06d.txt", game);
    return config.out_dir + name;
  };
  // Games 2 and 5 were never written; game 1's record is marked, so that a
  // replay of it (which rewrites the file) would show.
  std::filesystem::remove(path(2));
  std::filesystem::remove(path(5));
  WriteFileAtomic(path(1), "[Annotator \"kept\"]\n" + ReadFile(path(1)));
  config.resume = true;
  config.threads = 2;
  const MatchResult resumed = RunMatch(config);
  EXPECT_EQ(resumed.resumed, 4);
  ExpectSameGames(full, resumed);
  EXPECT_NE(ReadFile(path(1)).find("kept"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path(2)) && std::filesystem::exists(path(5)));
  // Everything recorded: nothing is played.
  EXPECT_EQ(RunMatch(config).resumed, 6);

  // Records of other players, or of a game without its end, are errors naming the file.
  MatchConfig other = config;
  other.player_b = "ab:depth=1";
  EXPECT_NE(MatchError<ParseError>(other).find(path(1) + ": [White \"greedy\"] is not this match's \"ab:depth=1\""),
            std::string::npos)
      << MatchError<ParseError>(other);
  const std::string text = ReadFile(path(3));
  const size_t moves = text.find("\n\n") + 2;  // the move text's first line: two moves of a longer game
  WriteFileAtomic(path(3), text.substr(0, moves) + text.substr(moves, text.find('\n', moves) - moves) + "\n");
  EXPECT_NE(MatchError<ParseError>(config).find(path(3) + ": the game has no result"), std::string::npos)
      << MatchError<ParseError>(config);
  config.out_dir.clear();
  EXPECT_NE(MatchError(config).find("--resume needs --out"), std::string::npos);
}

TEST(MatchTest, SprtStopsEarly) {
  MatchConfig config = SmallMatch("ab:depth=2", "random", 1000);
  config.sprt = SprtConfig{0, 200, 0.05, 0.05};
  const MatchResult result = RunMatch(config);
  EXPECT_LT(result.games, 1000);
  EXPECT_EQ(result.decision, SprtDecision::kAcceptH1);
  // One thread: the decision came with the last game, at or past the bound.
  EXPECT_EQ(result.decided_after, result.games);
  EXPECT_DOUBLE_EQ(result.decided_llr, result.llr);
  double lower, upper;
  SprtBounds(*config.sprt, lower, upper);
  EXPECT_GE(result.decided_llr, upper);
  EXPECT_EQ(result.ToJson()["sprt"]["decided_after"], result.games);
}

// Plays the first legal move after `delay` seconds, whatever its clock says.
class SlowPlayer : public Player {
 public:
  explicit SlowPlayer(double delay) : delay_(delay) {}
  std::string name() const override { return "slow"; }
  Move ChooseMove(const Game& game, const Clock&) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_));
    MoveList moves;
    game.LegalMoves(moves);
    return moves[0];
  }

 private:
  double delay_;
};

TEST(MatchTest, AGameClockIsToldToThePlayersAndItsFlagFalls) {
  // Alpha-beta players read the clock and finish their games in time; the
  // records carry the time control.
  const std::string dir = TempDir("clock");
  MatchConfig config = SmallMatch("ab", "ab:version=1", 2);
  config.clock_seconds = 1.5;
  config.out_dir = dir;
  MatchResult result = RunMatch(config);
  for (const MatchGame& g : result.game_list) EXPECT_NE(g.reason, Reason::kTimeout) << g.index;
  EXPECT_NE(ReadFile(dir + "/game_000001.txt").find("[TimeControl \"1.5\"]"), std::string::npos);
  // One that ignores it loses on time, with either colour.
  config = SmallMatch("slow", "random", 2);
  config.make_a = [] { return std::make_unique<SlowPlayer>(0.04); };
  config.clock_seconds = 0.1;
  result = RunMatch(config);
  EXPECT_EQ(result.losses, 2);
  for (const MatchGame& g : result.game_list) EXPECT_EQ(g.reason, Reason::kTimeout) << g.index;
  std::filesystem::remove_all(dir);
}

TEST(MatchTest, APlayerThatDoesNotPlayTheBoardIsRefusedBeforeAnyGame) {
  // A player that says nothing of sizes plays 8x8 alone (Player::PlaysBoardSize), as a net of 8x8 does.
  struct EightOnly : Player {
    std::string name() const override { return "eight-only"; }
    Move ChooseMove(const Game& game, const Clock&) override {
      ADD_FAILURE() << "a game was played";
      MoveList moves;
      game.position().GenerateMoves(moves);
      return moves[0];
    }
  };
  MatchConfig config = SmallMatch("random", "random", 2);
  config.rules.size = 6;
  config.make_b = [] { return std::make_unique<EightOnly>(); };
  const std::string error = MatchError(config);
  EXPECT_NE(error.find("eight-only does not play the 6x6 board"), std::string::npos) << error;
}

TEST(MatchTest, MoveCapEndsEveryGame) {
  MatchConfig config = SmallMatch("random", "random", 2);
  config.rules.max_plies = 6;
  const MatchResult result = RunMatch(config);
  for (const MatchGame& g : result.game_list) EXPECT_LE(g.plies, 6);
}

TEST(MatchTest, OpeningFilesAreReadAndCheckedByLine) {
  const std::string dir = TempDir("openings");
  std::filesystem::create_directories(dir);
  const std::string good = dir + "/good.txt", bad = dir + "/bad.txt";
  std::ofstream(good)
      << "# two openings\n8/8/4wb2/w7/2b2b2/w2bb3/1bw4w/4b3 b\n\n1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 w\n";
  std::ofstream(bad) << "1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b\n1bbbbbb1/w6w/w6w b\n";
  MatchConfig config = SmallMatch("random", "random", 4);
  config.openings = good;
  EXPECT_EQ(RunMatch(config).games, 4);
  config.openings = bad;
  const std::string message = MatchError<ParseError>(config);
  EXPECT_NE(message.find(bad + ":2"), std::string::npos) << message;
}

TEST(MatchTest, ExternalEngineThroughTheProtocol) {
  if (!std::filesystem::exists(LOAZ_BINARY)) GTEST_SKIP() << LOAZ_BINARY << " is not built";
  // The same deterministic player in-process and behind the protocol.
  const MatchResult local = RunMatch(SmallMatch("ab:depth=2", "ab:depth=1", 4));
  const MatchResult remote =
      RunMatch(SmallMatch("gtp:cmd=" + std::string(LOAZ_BINARY) + " gtp --player ab:depth=2", "ab:depth=1", 4));
  ExpectSameGames(local, remote);
  // On 6x6 too: the engine is told the board by the start position.
  MatchConfig six_local = SmallMatch("ab:depth=2", "ab:depth=1", 2), six_remote = six_local;
  six_local.rules.size = six_remote.rules.size = 6;
  six_remote.player_a = "gtp:cmd=" + std::string(LOAZ_BINARY) + " gtp --player ab:depth=2";
  ExpectSameGames(RunMatch(six_local), RunMatch(six_remote));
}

TEST(MatchTest, AFailingEngineIsNamed) {
  const std::string message = MatchError(SmallMatch("gtp:cmd=exit 0", "random", 2));
  EXPECT_NE(message.find("engine 'exit 0'"), std::string::npos) << message;
}

// An engine that answers everything but genmove, which it never answers: it
// sleeps in a child process, as a stuck engine would. It writes its process
// group to `group_file` first.
std::string SilentEngine(const std::string& group_file, double timeout) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeout);
  return std::string("gtp:timeout=") + seconds + ",cmd=echo $$ > " + group_file +
         "; while read l; do case $l in genmove*) sleep 1234;; *) printf '=\\n\\n';; esac; done";
}

// Returns whether a live process (not a zombie waiting for its parent) is
// left in process group `group`.
bool GroupAlive(pid_t group) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    char state = 0;
    long parent = 0, process_group = 0;
    fields >> state >> parent >> process_group;
    if (process_group == group && state != 'Z') return true;
  }
  return false;
}

// Returns whether process group `group` is gone within `seconds`. SIGKILL
// to a group is delivered asynchronously: the engine's shell is reaped at
// once, but an orphaned child may run on until the scheduler lets it die,
// which on a loaded machine can take a moment.
bool GroupGoneWithin(pid_t group, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (GroupAlive(group)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(MatchTest, ASilentEngineLosesOnTimeAndIsKilledWithItsChildren) {
  const std::string group_file = TempDir("silent_group");
  MatchConfig config = SmallMatch(SilentEngine(group_file, 0.3), "random", 2);
  config.out_dir = TempDir("silent_records");
  const MatchResult result = RunMatch(config);
  EXPECT_EQ(result.losses, 2);
  for (const MatchGame& game : result.game_list) EXPECT_EQ(game.reason, Reason::kTimeout);
  // The records say so, and replay to the same result.
  const std::string path = config.out_dir + "/game_000001.txt";
  const Record record = ParseRecord(ReadFile(path), path);
  EXPECT_EQ(TagValue(record.tags, "Termination"), "timeout");
  const Game replayed = ReplayRecord(record, record.rules, path);
  EXPECT_EQ(replayed.reason(), Reason::kTimeout);
  EXPECT_EQ(replayed.result(), Result::kWhiteWins);  // the engine had Black in game 1
  // The second game's engine (restarted after the first timeout) and its
  // sleeping child are gone.
  const pid_t group = pid_t(std::stol(ReadFile(group_file)));
  EXPECT_TRUE(GroupGoneWithin(group, 10)) << "process group " << group << " outlived the match";
}

TEST(MatchTest, WithoutForfeitsATimeoutIsAnError) {
  MatchConfig config = SmallMatch(SilentEngine(TempDir("silent_group2"), 0.2), "random", 2);
  config.forfeit_on_timeout = false;
  const std::string message = MatchError<PlayerTimeout>(config);
  EXPECT_NE(message.find("no reply to 'genmove b' within 0.2 s"), std::string::npos) << message;
}

TEST(MatchTest, AnEndlessReplyIsCutAtItsBound) {
  const std::string message = MatchError(SmallMatch("gtp:cmd=yes =", "random", 1));
  EXPECT_NE(message.find("longer than 1048576 bytes"), std::string::npos) << message;
}

TEST(MatchTest, AnEngineThatNeverAnswersForfeitsAtItsFirstCommand) {
  const MatchResult result = RunMatch(SmallMatch("random", "gtp:timeout=0.2,cmd=sleep 1235", 2));
  EXPECT_EQ(result.wins, 2);
}

TEST(TournamentTest, RatesARoundRobin) {
  TournamentConfig config;
  config.players = {"random", "ab:depth=1", "ab:depth=2"};
  config.games_per_pair = 4;
  config.match = SmallMatch("", "", 0);
  config.anchor = "random";
  const TournamentResult result = RunTournament(config);
  ASSERT_EQ(result.matches.size(), 3u);
  EXPECT_EQ(result.ratings[0].elo, 0);
  EXPECT_GT(result.ratings[1].elo, 0);
  EXPECT_GT(result.ratings[2].elo, 0);
  EXPECT_NE(result.Table().find("(anchor)"), std::string::npos);
  config.anchor = "nobody";
  EXPECT_THROW(RunTournament(config), Error);
}

}  // namespace
}  // namespace loa
