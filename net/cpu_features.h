#pragma once
// What the processor this process runs on can execute, read once with cpuid
// (GCC's __builtin_cpu_supports), so that one binary picks its kernels at run
// time instead of trusting the flags it was compiled with.

#include <string>

namespace loa {

struct CpuFeatures {
  bool avx2_fma = false;  // AVX2 and FMA: the 256-bit float and int8 kernels
  bool avx512f = false;   // AVX-512 Foundation: the 512-bit float kernel

  // Returns e.g. "avx2+fma avx512f", or "none".
  std::string ToString() const;
};

// Returns the running processor's features. Thread-safe.
const CpuFeatures& Cpu();

}  // namespace loa
