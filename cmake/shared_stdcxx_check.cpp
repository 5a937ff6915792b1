// Configure-time check (CMakeLists.txt): exits 0 when a program linked as
// this project links runs on the shared libstdc++, as LibTorch does.
#include <link.h>

#include <cstring>
#include <locale>

int main() {
  const std::locale locale;  // the runtime's locale: a static copy would bring its own
  int shared = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (std::strstr(info->dlpi_name, "libstdc++.so")) *static_cast<int*>(data) = 1;
        return 0;
      },
      &shared);
  return locale.name().empty() || !shared;
}
