#pragma once
// The protocol engines' tests (uci_engine_test, xboard_engine_test): a
// session's input given whole, its output as lines.

#include <sstream>
#include <string>
#include <vector>

namespace loa::testing {

// Runs an Engine of `spec` on `input` to its end and returns what it wrote, a line each.
template <typename Engine, typename... Args>
std::vector<std::string> TalkTo(const std::string& input, const std::string& spec, Args... args) {
  Engine engine(spec, args...);
  std::istringstream in(input);
  std::ostringstream out;
  engine.Run(in, out);
  std::vector<std::string> lines;
  std::istringstream replies(out.str());
  for (std::string line; std::getline(replies, line);) lines.push_back(line);
  return lines;
}

}  // namespace loa::testing
