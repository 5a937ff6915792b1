// libFuzzer target: lines of the text protocol to the engine (a random
// player, so that genmove is quick; loa_solve bounded to 1,000 positions
// and a 1 MB table, as its default 10 s would pass the fuzzer's timeout),
// at most 32 a run.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.h"
#include "play/gtp_engine.h"
#include "play/player_kinds.h"
#include "play/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loa::GtpEngine engine(loa::MakeRandomPlayer(loa::PlayerSpec::Parse("random")));
  engine.set_solve_bounds(1000, 1);
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  for (int n = 0; n < 32 && std::getline(lines, line) && !engine.quit(); ++n) engine.Handle(line);
  return 0;
}
