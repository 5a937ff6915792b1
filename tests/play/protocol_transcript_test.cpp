// Golden transcripts of `loaz uci` and `loaz xboard` as cutechess drives
// them (tests/golden/cutechess_*.txt): each "> " line is written to the
// built engine, each "< " line must be the next line it writes, byte for
// byte but for the measured time and speed of a search (masked). The
// commands are those cutechess-cli writes (its UciEngine and XboardEngine),
// the dummy move before `setboard` included.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "play/engine_process.h"

namespace loa {
namespace {

constexpr double kReplySeconds = 60;

// The line with what a search measured masked: UCI's `time N` and `nps N`,
// xboard's third field of a thinking line (centiseconds).
std::string Masked(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  const bool thinking = !words.empty() && std::isdigit(static_cast<unsigned char>(words[0][0]));
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[0] == "info" && i > 0 && (words[i - 1] == "time" || words[i - 1] == "nps")) words[i] = "T";
    if (thinking && i == 2) words[i] = "T";
  }
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

void Replay(const std::string& transcript, const std::string& protocol) {
  if (std::string(LOAZ_BINARY).empty() || !std::ifstream(LOAZ_BINARY).good()) GTEST_SKIP() << "loaz is not built";
  std::ifstream in(std::string(LOAZ_GOLDEN_DIR) + "/" + transcript);
  ASSERT_TRUE(in.good()) << transcript;
  EngineProcess engine("loaz " + protocol, std::string(LOAZ_BINARY) + " " + protocol + " --player ab:depth=2");
  std::string last_sent;
  int number = 0, replies = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("> ", 0) == 0) {
      last_sent = line.substr(2);
      engine.WriteLine(last_sent);
    } else if (line.rfind("< ", 0) == 0) {
      const std::string got = engine.ReadLine(last_sent, kReplySeconds);
      ASSERT_EQ(Masked(got), Masked(line.substr(2))) << transcript << ":" << number << " after '" << last_sent << "'";
      ++replies;
    }
  }
  EXPECT_GT(replies, 10) << transcript;
}

TEST(ProtocolTranscriptTest, UciAsCutechessDrivesIt) { Replay("cutechess_uci.txt", "uci"); }

TEST(ProtocolTranscriptTest, XboardAsCutechessDrivesItWithTheDummyMove) { Replay("cutechess_xboard.txt", "xboard"); }

TEST(ProtocolTranscriptTest, TheMaskHidesOnlyWhatASearchMeasures) {
  EXPECT_EQ(Masked("info depth 2 nodes 596 nps 105258 time 5 score cp 14 pv d1b3"),
            "info depth 2 nodes 596 nps T time T score cp 14 pv d1b3");
  EXPECT_EQ(Masked("2 14 37 596 d1b3 a2c2"), "2 14 T 596 d1b3 a2c2");
  EXPECT_EQ(Masked("move d1b3"), "move d1b3");
}

}  // namespace
}  // namespace loa
