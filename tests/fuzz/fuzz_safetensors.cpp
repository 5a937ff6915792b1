// libFuzzer target: a net file's bytes (safetensors, and the export's
// metadata and tensors as ReadExport checks them).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "net/export.h"
#include "net/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    loa::ParseExport(bytes, "fuzz.safetensors");
  } catch (const loa::Error&) {
  }
  return 0;
}
