// libFuzzer target: a position string (the first line) and moves in it
// (each further line), as the text protocol and the page take them.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/game.h"
#include "core/notation.h"
#include "core/position.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  std::getline(lines, line);
  try {
    loa::Game game(loa::Rules(), loa::Position::FromString(line));
    for (int n = 0; n < 64 && std::getline(lines, line) && !game.over(); ++n)
      game.Play(loa::ParseMove(line, game.position()));
  } catch (const loa::Error&) {
  }
  return 0;
}
