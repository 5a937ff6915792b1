// Game records: the expert games of tests/data/games replay to their known
// outcomes, and records round-trip.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.h"
#include "core/file_util.h"
#include "core/formats.h"
#include "core/notation.h"
#include "core/random_play.h"
#include "core/record.h"
#include "tests/core/expert_games.h"
#include "tests/core/test_util.h"

namespace loa {
namespace {

using testing::ErrorOf;

using testing::ExpertGames;
using Expected = testing::ExpertGame;
const std::string& kGames = testing::kExpertGames;
std::vector<Expected> ReadOutcomes() { return ExpertGames(); }

TEST(Record, ExpertGamesReplayToTheirOutcomes) {
  const auto expected = ReadOutcomes();
  ASSERT_EQ(expected.size(), 16u);
  for (const Expected& e : expected) {
    const std::string path = kGames + e.file;
    const Record record = ParseRecord(ReadFile(path), path);
    const Game game = ReplayRecord(record, record.rules, path);
    EXPECT_EQ(game.ply(), e.plies) << e.file;
    if (e.outcome == "unfinished") {
      EXPECT_FALSE(game.over()) << e.file;
    } else {
      EXPECT_EQ(ResultName(game.result()), e.outcome) << e.file;
      EXPECT_EQ(game.reason(), Reason::kUnited) << e.file;
    }
  }
}

Game RandomGame(uint32_t seed, const Rules& rules, const Position& start) {
  Rng rng(seed);
  Game game(rules, start);
  while (!game.over() && game.ply() < 120) {
    MoveList moves;
    game.LegalMoves(moves);
    game.Play(RandomMove(moves, rng));
  }
  return game;
}

TEST(Record, WriteThenReadGivesTheSameGame) {
  Rules capped;
  capped.max_plies = 60;
  capped.simultaneous = Simultaneous::kMover;
  const Position white_first = Position::FromString("1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 w");
  for (uint32_t seed = 0; seed < 20; ++seed) {
    const Rules rules = seed % 2 ? capped : Rules();
    const Game game = RandomGame(seed, rules, seed % 3 ? Position::Start() : white_first);
    const std::string text = FormatRecord(game, {{"Black", "random"}, {"White", "random \"quoted\""}});
    const Record record = ParseRecord(text, "memory");
    EXPECT_EQ(TagValue(record.tags, "Black"), "random");
    const Game back = ReplayRecord(record, record.rules, "memory");
    ASSERT_EQ(back.moves(), game.moves()) << text;
    EXPECT_EQ(back.result(), game.result());
    EXPECT_EQ(back.reason(), game.reason());
    EXPECT_EQ(back.rules(), game.rules());
    EXPECT_EQ(record.result_token, game.over() ? ResultName(game.result()) : "*");
  }
}

// cutechess's PGN of linesofaction: its FEN (p Black, P White), moves as
// FROM-TO or FROMxTO after numbers like "1...", results in chess colours.
std::string CutechessPgn(const Game& game, const std::string& result_tag, const std::string& termination = "") {
  std::string text = "[Event \"?\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"" + result_tag + "\"]\n";
  if (!termination.empty()) text += "[Termination \"" + termination + "\"]\n";
  text += "[FEN \"" + FormatPosition(game.start(), PositionFormat::kCutechess) +
          "\"]\n[SetUp \"1\"]\n[Variant \"linesofaction\"]\n\n";
  for (size_t i = 0; i < game.moves().size(); ++i)
    text += (i % 2 == 0 ? std::to_string(i / 2 + 1) + "... " : "") + FormatMove(game.moves()[i]) + " ";
  return text + result_tag + "\n";
}

TEST(Record, CutechessPgnReadsWithItsFenAndColours) {
  // Every expert game of tests/data, written as cutechess writes it and read back.
  int read = 0;
  for (const Expected& e : ReadOutcomes()) {
    const Record source = ParseRecord(ReadFile(kGames + e.file), e.file);
    const Game game = ReplayRecord(source, source.rules, e.file);
    if (!game.over() || game.result() == Result::kDraw) continue;
    const std::string chess = game.result() == Result::kWhiteWins ? "1-0" : "0-1";
    const Record record = ParseRecord(CutechessPgn(game, chess), "cutechess.pgn");
    EXPECT_EQ(record.start, Position::Start());
    EXPECT_EQ(record.result_token, ResultName(game.result()))
        << chess << " is a " << ResultName(game.result()) << " win";
    const Game back = ReplayRecord(record, record.rules, "cutechess.pgn");
    EXPECT_EQ(back.moves(), game.moves());
    EXPECT_EQ(back.result(), game.result());
    ++read;
  }
  EXPECT_GT(read, 5);
  // A loss on time: cutechess's termination, the winner in chess colours.
  Game cut(Rules(), Position::Start());
  cut.Play(ParseMove("b1-d3", cut.position()));
  const Record timed = ParseRecord(CutechessPgn(cut, "0-1", "time forfeit"), "timed.pgn");
  const Game lost = ReplayRecord(timed, timed.rules, "timed.pgn");
  EXPECT_EQ(lost.result(), Result::kBlackWins);  // 0-1: White's flag fell
  EXPECT_EQ(lost.reason(), Reason::kTimeout);
}

TEST(Record, CutechessPgnIsWrittenAsItReads) {
  for (const Expected& e : ReadOutcomes()) {
    const Record source = ParseRecord(ReadFile(kGames + e.file), e.file);
    const Game game = ReplayRecord(source, source.rules, e.file);
    const std::string text = FormatCutechessPgn(game, {{"White", "w"}, {"Black", "b"}});
    EXPECT_NE(text.find("[Variant \"linesofaction\"]"), std::string::npos);
    EXPECT_NE(text.find("\n\n1... "), std::string::npos) << text;  // Black opens, numbered as chess does
    const Record back = ParseRecord(text, e.file);
    const Game replayed = ReplayRecord(back, back.rules, e.file);
    EXPECT_EQ(replayed.moves(), game.moves()) << text;
    EXPECT_EQ(replayed.result(), game.result());
    EXPECT_EQ(back.result_token, game.over() ? ResultName(game.result()) : "*");
    if (game.result() == Result::kBlackWins) EXPECT_NE(text.find("[Result \"0-1\"]"), std::string::npos);
  }
}

TEST(Record, IllegalMoveNamesPlyMoveAndPosition) {
  const Record record = ParseRecord("1. c8-c6 h4-f2\n2. g8-g5\n", "bad.txt");
  try {
    ReplayRecord(record, record.rules, "bad.txt");
    FAIL() << "g8-g5 is illegal";
  } catch (const ParseError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.txt: ply 3"), std::string::npos) << what;
    EXPECT_NE(what.find("'g8-g5'"), std::string::npos) << what;
    EXPECT_NE(what.find("position '"), std::string::npos) << what;
  }
}

TEST(Record, MovesAfterTheEndAndBadTagsAreRejected) {
  const Record after =
      ParseRecord("1. d1-b3 h5-g4\n2. b1-b4 g4xg1\n3. b4-e7 a3xc1\n4. b3-e6 h3xf1\n5. e1-e5 h2-h4\n", "x");
  EXPECT_THROW(ReplayRecord(after, after.rules, "x"), ParseError);
  EXPECT_THROW(ParseRecord("[Black \"a\"\n1. c8-c6\n", "x"), ParseError);
  EXPECT_THROW(ParseRecord("[FEN \"8/8 b\"]\n", "x"), ParseError);
  EXPECT_THROW(ParseRecord("[Rules \"simultaneous=maybe\"]\n", "x"), ParseError);
  // Nothing (an emptied file) is no record; a tag alone is one of no moves.
  for (const char* empty : {"", "\n\n", "  \n; a comment\n"})
    EXPECT_THROW(ParseRecord(empty, "x"), ParseError) << empty;
  EXPECT_EQ(ParseRecord("[Black \"a\"]\n", "x").tags.size(), 1u);
}

// Returns the message of the ParseError of replaying text, or "".
std::string ReplayError(const std::string& text) {
  try {
    const Record record = ParseRecord(text, "r.txt");
    ReplayRecord(record, record.rules, "r.txt");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(Record, TheCaptureMarkMustAgreeWithTheBoard) {
  // d1-b3 lands on an empty square; h5-g4 too; b1-b4 as well; g4xg1 captures.
  EXPECT_EQ(ReplayError("1. d1-b3 h5-g4\n2. b1-b4 g4xg1\n"), "");
  EXPECT_NE(ReplayError("1. d1xb3\n").find("no piece to capture on b3, so it is written with '-'"), std::string::npos);
  EXPECT_NE(ReplayError("1. d1-b3 h5-g4\n2. b1-b4 g4-g1\n").find("it captures on g1, so it is written with 'x'"),
            std::string::npos);
  EXPECT_EQ(ReplayError("1. d1-b3 h5-g4\n2. b1-b4 g4:g1\n"), "");  // ':' is a capture mark too
}

TEST(Record, CommentsMustBeClosed) {
  EXPECT_EQ(ReplayError("1. d1-b3 {a {nested} comment} h5-g4\n"), "");
  EXPECT_NE(ReplayError("1. d1-b3 {never closed\nh5-g4\n").find("a '{' comment is never closed"), std::string::npos);
  EXPECT_NE(ReplayError("1. d1-b3 } h5-g4\n").find("'}' closes no comment"), std::string::npos);
}

TEST(Record, MessagesQuoteAnExcerptOfAHugeToken) {
  const std::string message = ReplayError("1. " + std::string(1 << 20, 'x') + "\n");
  EXPECT_NE(message, "");
  EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
}

TEST(Record, ExcerptsShowControlCharactersAndCutLongText) {
  EXPECT_EQ(Excerpt(std::string("a\0b\n", 4)), "a\\x00b\\x0a");
  EXPECT_EQ(Excerpt("abcdef", 3), "abc...");
  EXPECT_EQ(Excerpt("abc", 3), "abc");
  // A NUL in a position no longer ends the message before its reason.
  const std::string message = ErrorOf<ParseError>([] { Position::FromString(std::string("8/8 b\0junk", 10)); });
  EXPECT_NE(message.find("\\x00junk"), std::string::npos) << message;
}

TEST(FileUtil, OnlyRegularFilesWithinTheBoundAreRead) {
  EXPECT_NE(ErrorOf<IoError>([] { ReadFile(::testing::TempDir()); }).find("is a folder, not a file"),
            std::string::npos);
  EXPECT_NE(ErrorOf<IoError>([] { ReadFile("/dev/zero"); }).find("not a regular file"), std::string::npos);
  const std::string path = ::testing::TempDir() + "/loaz_bounded.txt";
  WriteFileAtomic(path, std::string(1000, 'a'));
  EXPECT_EQ(ReadFile(path, 1000).size(), 1000u);
  EXPECT_NE(ErrorOf<IoError>([&] { ReadFile(path, 999); }).find("larger than 999 bytes"), std::string::npos);
}

TEST(FileUtil, KeepNeverReplacesAndStaleTempFilesGo) {
  const std::string dir = ::testing::TempDir() + "/loaz_temp_files";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  WriteFileAtomic(dir + "/a", "first", Existing::kKeep);
  EXPECT_THROW(WriteFileAtomic(dir + "/a", "second", Existing::kKeep), IoError);
  EXPECT_EQ(ReadFile(dir + "/a"), "first");
  // This host's temporary file of a dead writer goes, a live one's (this
  // process) stays; another host's stays whatever its process id says,
  // unless it is older than the bound.
  const std::string host = ThisHost(), pid = std::to_string(::getpid());
  WriteFileAtomic(dir + "/b.tmp." + host + ".999999999.7", "cut short");  // no such process id
  WriteFileAtomic(dir + "/c.tmp." + host + "." + pid + ".1", "being written");
  WriteFileAtomic(dir + "/d.tmp.other-host.999999999.2", "another machine's");
  WriteFileAtomic(dir + "/e.tmp.999999999", "an older form's, of a dead writer");
  EXPECT_EQ(RemoveStaleTempFiles(dir), 2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/b.tmp." + host + ".999999999.7"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/e.tmp.999999999"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/c.tmp." + host + "." + pid + ".1"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/d.tmp.other-host.999999999.2"));
  std::filesystem::last_write_time(dir + "/d.tmp.other-host.999999999.2",
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(48));
  EXPECT_EQ(RemoveStaleTempFiles(dir), 1);
  EXPECT_FALSE(std::filesystem::exists(dir + "/d.tmp.other-host.999999999.2"));
  // The names: the writer of each form; anything else is not a temporary.
  const auto owner = TempFileOwner("x.shard.tmp.node-7.42.3");
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->host, "node-7");
  EXPECT_EQ(owner->pid, 42);
  EXPECT_EQ(TempFileOwner("x.shard.tmp.42")->pid, 42);
  EXPECT_FALSE(TempFileOwner("x.shard"));
  EXPECT_FALSE(TempFileOwner("x.tmp.a.b.c"));
  const auto fresh = TempFileOwner(std::filesystem::path(TempFileName(dir + "/f")).filename().string());
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->host, host);
  EXPECT_EQ(fresh->pid, ::getpid());
  EXPECT_NE(TempFileName(dir + "/f"), TempFileName(dir + "/f"));
}

// Two processes that present different host names share a folder (as
// `loaz selfplay --run DIR` on two machines does): a start on host B never
// removes host A's temporaries, even of a process id that B has not.
TEST(FileUtil, AnotherHostsTemporariesSurviveAResume) {
  const std::string dir = ::testing::TempDir() + "/loaz_temp_hosts";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto in_child = [&](const char* host, const std::function<int()>& body) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::setenv("LOAZ_HOST", host, 1);
      std::_Exit(body());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  // Host A's writer leaves a temporary and dies (a crash mid-write).
  std::string left;
  ASSERT_EQ(in_child("host-a",
                     [&] {
                       const std::string temp = TempFileName(dir + "/shard");
                       std::FILE* f = std::fopen(temp.c_str(), "wb");
                       return f && std::fclose(f) == 0 ? 0 : 1;
                     }),
            0);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) left = entry.path().filename().string();
  ASSERT_EQ(TempFileOwner(left)->host, "host-a");
  // Host B's start removes nothing of A's; A's own next start does.
  EXPECT_EQ(in_child("host-b", [&] { return RemoveStaleTempFiles(dir); }), 0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + left));
  EXPECT_EQ(in_child("host-a", [&] { return RemoveStaleTempFiles(dir); }), 1);
  EXPECT_FALSE(std::filesystem::exists(dir + "/" + left));
}

TEST(FileUtil, AtomicWriteThenRead) {
  const std::string path = ::testing::TempDir() + "/loaz_record_test.txt";
  WriteFileAtomic(path, "one");
  WriteFileAtomic(path, "two");
  EXPECT_EQ(ReadFile(path), "two");
  EXPECT_THROW(ReadFile(path + ".missing"), IoError);
  EXPECT_THROW(WriteFileAtomic("/nonexistent-dir/x", "y"), IoError);
}

}  // namespace
}  // namespace loa
