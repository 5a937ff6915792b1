#pragma once
// The positions as a LibTorch batch, for the tests of the net and the
// trainer (the program encodes into its own buffers: net/encoder.h).

#include <torch/torch.h>

#include "core/position.h"
#include "net/encoder.h"

namespace loa::testing {

// Returns a CPU float tensor [count, planes, 8, 8] of the positions encoded
// with an input set (owns its memory).
inline torch::Tensor EncodeBatch(const Position* positions, int count, InputFeatures features = InputFeatures::kBasic) {
  torch::Tensor batch = torch::empty({count, NumInputPlanes(features), 8, 8}, torch::kFloat32);
  EncodePositions(positions, count, batch.data_ptr<float>(), features);
  return batch;
}

}  // namespace loa::testing
