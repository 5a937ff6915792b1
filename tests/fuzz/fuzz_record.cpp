// libFuzzer target: a game record's text, parsed and replayed under the
// rules it names (core/record.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "core/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const loa::Record record = loa::ParseRecord(text, "fuzz.txt");
    loa::ReplayRecord(record, loa::Rules(), "fuzz.txt");
  } catch (const loa::Error&) {
  }
  return 0;
}
