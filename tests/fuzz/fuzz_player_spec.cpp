// libFuzzer target: a player spec ("kind:key=value,..."), parsed and read
// by the kinds that build without a net or a program (play/player_kinds.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "play/player_kinds.h"
#include "play/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loa::PlayerSpec spec = loa::PlayerSpec::Parse(text);
    loa::LimitsOf(spec);
    loa::SpecWithoutLimit(spec);
    // A limit set without parsing is what its text parses to.
    const loa::PlayerSpec limited = loa::SpecWithLimit(spec, 1, 0);
    if (loa::PlayerSpec::Parse(limited.text()).text() != limited.text()) __builtin_trap();
    if (spec.kind() == "random") loa::MakeRandomPlayer(spec);
    if (spec.kind() == "greedy") loa::MakeGreedyPlayer(spec);
    if (spec.kind() == "ab") loa::ReadAlphaBetaSpec(spec);
  } catch (const loa::Error&) {
  }
  return 0;
}
