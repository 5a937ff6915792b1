#pragma once
// metrics.jsonl: one JSON object per line and event (docs/DESIGN.md, Run
// directory). Several processes may append to one file: each line goes out
// in one write to a file opened for appending.

#include <string>

#include <nlohmann/json.hpp>

namespace loa::train {

class MetricsLog {
 public:
  // Opens path for appending; throws IoError naming it.
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

}  // namespace loa::train
