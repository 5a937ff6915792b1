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
// cut short) is skipped, and so is a last line without its newline (one
// being written). None when the file does not exist.
std::vector<nlohmann::json> ReadJsonLines(const std::string& path);

// The same from byte `offset` on (a file that grows is read a piece at a
// time); *next becomes the offset after the last complete line, where the
// next read begins. An offset beyond the file's end (a file replaced by a
// shorter one) reads from 0 and sets *reset.
std::vector<nlohmann::json> ReadJsonLines(const std::string& path, uint64_t offset, uint64_t* next,
                                          bool* reset = nullptr);

}  // namespace loa::train
