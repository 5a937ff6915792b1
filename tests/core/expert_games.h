#pragma once
// The expert games of tests/data/games (OUTCOMES.txt: file, plies, outcome),
// shared by the record, format and rule-set tests.

#include <sstream>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/record.h"

namespace loa::testing {

inline const std::string kExpertGames = std::string(LOAZ_TESTDATA_DIR) + "/games/";

struct ExpertGame {
  std::string file;
  int plies = 0;
  std::string outcome;  // "black", "white" or "unfinished"
};

// Reads OUTCOMES.txt: "file plies outcome" per line, '#' comments.
inline std::vector<ExpertGame> ExpertGames() {
  std::istringstream in(ReadFile(kExpertGames + "OUTCOMES.txt"));
  std::vector<ExpertGame> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    ExpertGame e;
    if (fields >> e.file >> e.plies >> e.outcome) out.push_back(e);
  }
  return out;
}

// Returns an expert game replayed under its record's rules.
inline Game ReplayExpertGame(const ExpertGame& e) {
  const std::string path = kExpertGames + e.file;
  const Record record = ParseRecord(ReadFile(path), path);
  return ReplayRecord(record, record.rules, path);
}

}  // namespace loa::testing
