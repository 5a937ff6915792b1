#include "serve/memory.h"

#include <fstream>

#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace loa::serve {

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * int64_t(::sysconf(_SC_PAGESIZE));
}

void ReturnFreeMemory() {
#ifdef __GLIBC__
  ::malloc_trim(0);
#endif
}

}  // namespace loa::serve
