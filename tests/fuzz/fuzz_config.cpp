// libFuzzer target: a training config's YAML, and after a first NUL byte,
// --set overrides (one a line), as `loaz train CONFIG --set ...` reads them.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "run/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  std::vector<std::string> overrides;
  if (nul != std::string::npos) {
    std::istringstream lines(input.substr(nul + 1));
    for (std::string line; std::getline(lines, line);) overrides.push_back(line);
  }
  try {
    const loa::run::Config config = loa::run::ParseConfig(input.substr(0, nul), "fuzz.yaml", overrides);
    loa::run::ConfigToYaml(config);
  } catch (const loa::Error&) {
  }
  return 0;
}
