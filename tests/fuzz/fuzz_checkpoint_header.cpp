// libFuzzer target: a checkpoint's header (checkpoints/ckpt_STEP.json,
// run/checkpoints.h), read as the header of step 20.
#include <cstddef>
#include <cstdint>
#include <string>

#include "run/checkpoints.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (const auto header = loa::run::ParseCheckpointHeader(text, 20)) header->Hours();
  return 0;
}
