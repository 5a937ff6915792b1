#pragma once
// The server's memory in long use: what it holds, and giving back what it
// freed (docs/SERVE.md).

#include <cstdint>

namespace loa::serve {

// Returns the process's resident set size in bytes (0 where unknown).
int64_t ResidentBytes();

// Returns the heap's free pages to the system (glibc's malloc_trim): after a
// search's tree or a large reply is freed, so that a burst's memory does not
// stay resident. A no-op on other C libraries.
void ReturnFreeMemory();

}  // namespace loa::serve
