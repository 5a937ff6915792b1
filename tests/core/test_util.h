#pragma once
// Helpers shared by the core tests.

#include <string>
#include <vector>

#include "core/position.h"
#include "core/random_play.h"

namespace loa::testing {

// Returns the message of the E that f throws, or "" when it throws none.
template <typename E, typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

// Returns the position string parsed, failing the test on a parse error.
inline Position P(const std::string& fen) { return Position::FromString(fen); }

}  // namespace loa::testing
