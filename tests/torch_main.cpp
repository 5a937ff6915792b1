// The main of the test binaries that use LibTorch: installs the LibTorch
// backend (net/torch_backend.h) as loaz-torch does, then runs the tests.

#include <gtest/gtest.h>

#include "net/torch_evaluator.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  loa::InstallTorchBackend();
  return RUN_ALL_TESTS();
}
