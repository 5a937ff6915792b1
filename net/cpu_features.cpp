#include "net/cpu_features.h"

namespace loa {

std::string CpuFeatures::ToString() const {
  std::string s;
  if (avx2_fma) s += "avx2+fma";
  if (avx512f) s += s.empty() ? "avx512f" : " avx512f";
  return s.empty() ? "none" : s;
}

const CpuFeatures& Cpu() {
  static const CpuFeatures features = [] {
    __builtin_cpu_init();
    CpuFeatures f;
    f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f");
    return f;
  }();
  return features;
}

}  // namespace loa
