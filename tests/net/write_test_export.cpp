// Writes DIR/test_net.safetensors (a random net) and DIR/test_net_check.json
// (encoded positions and the Eigen evaluator's raw outputs for them), for
// the CTest that runs scripts/read_export.py --check on them.

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.h"
#include "core/file_util.h"
#include "net/cpu_net.h"
#include "net/encoder.h"
#include "net/export.h"
#include "tests/net/random_net.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  using namespace loa;
  const std::string dir = argv[1];
  try {
    ExportedNet net = loa::testing::RandomExport(loa::testing::SmallConfig(3, 16, 2, true), 99);
    WriteExport(dir + "/test_net.safetensors", net);
    const int count = 5;
    std::vector<Position> positions = RandomPositions(count, 99);
    std::vector<float> input(count * kInputSize), policy(count * kPolicySize), value(count * 3), moves_left(count);
    EncodePositions(positions.data(), count, input.data());
    CpuNet eigen(net);
    auto workspace = eigen.NewWorkspace();
    eigen.Forward(input.data(), count, policy.data(), value.data(), moves_left.data(), *workspace);
    nlohmann::json check;
    auto rows = [&](const std::vector<float>& flat, int width) {
      nlohmann::json out = nlohmann::json::array();
      for (int i = 0; i < count; ++i)
        out.push_back(std::vector<float>(flat.begin() + i * width, flat.begin() + (i + 1) * width));
      return out;
    };
    check["inputs"] = rows(input, kInputSize);
    check["policy"] = rows(policy, kPolicySize);
    check["value"] = rows(value, 3);
    check["moves_left"] = moves_left;
    WriteFileAtomic(dir + "/test_net_check.json", check.dump());
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
