#pragma once
// metrics.jsonl: one JSON object per line and event (docs/DESIGN.md, Run
// directory). Several processes may append to one file: each line goes out
// in one write to a file opened for appending.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loa::train {

class MetricsLog {
 public:
  // Opens path for appending; throws IoError naming it. A last line cut
  // short by a crash is ended first, so that it stays one malformed line
  // (which readers skip) and the next event starts a line of its own.
  explicit MetricsLog(const std::string& path);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  // Appends event (an object with an "event" name) with "time" (Unix
  // seconds) added. Thread-safe.
  void Write(nlohmann::json event);

 private:
  std::string path_;
  int fd_ = -1;
};

// Returns the JSON objects of a JSON-lines file (metrics.jsonl,
// eval/matches.jsonl), in order; a line that is not a JSON object (a write
// cut short) is skipped. None when the file does not exist.
std::vector<nlohmann::json> ReadJsonLines(const std::string& path);

}  // namespace loa::train
