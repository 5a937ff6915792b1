#pragma once
// The run's JSON-lines files, metrics.jsonl and eval/matches.jsonl: one
// JSON object per line and event (docs/DESIGN.md, Run directory). Several
// processes may append to one file: each line goes out in one write to a
// file opened for appending.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loa::run {

// Appends events to a JSON-lines file.
class JsonLinesLog {
 public:
  // Opens path for appending; throws IoError naming it. A last line cut
  // short by a crash is ended first, so that it stays one malformed line
  // (which readers skip) and the next event starts a line of its own.
  explicit JsonLinesLog(const std::string& path);
  ~JsonLinesLog();
  JsonLinesLog(const JsonLinesLog&) = delete;
  JsonLinesLog& operator=(const JsonLinesLog&) = delete;

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
// being written). None when the file does not exist. With `skipped`, adds
// the number of lines skipped to it (a last line without its newline too).
std::vector<nlohmann::json> ReadJsonLines(const std::string& path, int* skipped = nullptr);

// The most bytes one piece of a JSON-lines file holds (ReadJsonLinesPiece):
// what a reader holds in memory at once, and a metrics reply's bound.
inline constexpr std::size_t kJsonLinesChunkBytes = std::size_t{1} << 20;

// A piece of a JSON-lines file that grows, read from a byte offset on.
struct JsonLinesPiece {
  std::vector<nlohmann::json> objects;  // in order, complete lines only
  uint64_t next = 0;                    // the offset after the last complete line read: the next piece's
  uint64_t size = 0;                    // the file's size now
  bool more = false;                    // complete lines may follow before size (the piece was full)
  bool reset = false;                   // read from 0: the file is another one, or shorter than offset
  std::string file;                     // the file's identity (device and inode), "" when it does not exist
  int skipped = 0;                      // lines that are not JSON objects (damaged), and a last one cut short
};

// Reads at most max_bytes of path from `offset` on, without loading the
// rest. `file` is the identity of the last piece ("" for none): a file
// replaced since (another inode, as an atomic rewrite makes) or shorter than
// offset is read from 0 with reset set. A line longer than max_bytes is
// skipped. None when the file does not exist; IoError when path is not a
// regular file.
JsonLinesPiece ReadJsonLinesPiece(const std::string& path, uint64_t offset, const std::string& file,
                                  std::size_t max_bytes);

}  // namespace loa::run
