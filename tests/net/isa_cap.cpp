// The net's tests run again under each cap of oneDNN's instruction set
// (ONEDNN_MAX_CPU_ISA, tests/net/CMakeLists.txt), so that every int8
// kernel oneDNN may pick is tested on any machine. Under a cap above what
// this processor has, oneDNN runs a lower set, already tested under its
// own cap: every test is skipped, saying so.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "net/onednn_trunk.h"

namespace loa {
namespace {

class IsaCap : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (cap == nullptr || *cap == '\0' || std::string(cap) == "ALL") return;
    static const std::map<std::string, std::string> kIsaOfCap = {{"SSE41", "sse4.1"},
                                                                 {"AVX", "avx"},
                                                                 {"AVX2", "avx2"},
                                                                 {"AVX2_VNNI", "avx2+vnni"},
                                                                 {"AVX512_CORE", "avx512"},
                                                                 {"AVX512_CORE_VNNI", "avx512+vnni"},
                                                                 {"AVX512_CORE_BF16", "avx512+bf16"},
                                                                 {"AVX512_CORE_AMX", "amx"}};
    const auto it = kIsaOfCap.find(cap);
    ASSERT_NE(it, kIsaOfCap.end()) << "ONEDNN_MAX_CPU_ISA=" << cap << " is not a cap these tests know";
    if (OneDnnIsa() != it->second)
      GTEST_SKIP() << "ONEDNN_MAX_CPU_ISA=" << cap << ": this processor lacks " << it->second << " (oneDNN runs "
                   << OneDnnIsa() << ")";
    std::printf("oneDNN runs %s; int8: %s\n", OneDnnIsa().c_str(), Levels().Describe().c_str());
  }
};

const ::testing::Environment* const kIsaCap = ::testing::AddGlobalTestEnvironment(new IsaCap);

}  // namespace
}  // namespace loa
