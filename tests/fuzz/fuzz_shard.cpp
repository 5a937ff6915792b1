// libFuzzer target: a replay shard's bytes (train/shard.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "train/shard.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    loa::train::ParseShard(bytes, "fuzz.shard");
  } catch (const loa::Error&) {
  }
  return 0;
}
