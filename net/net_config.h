#pragma once
// The architecture of the network: one plain struct, written into every
// checkpoint and export as JSON. No LibTorch here.

#include <array>
#include <string>

#include "net/encoder.h"
#include "net/training_heads.h"

namespace loa {

class ParamVisitor;

// The epsilon of every batch norm (PyTorch's default); the cpu evaluator
// folds the norms into the convolutions with the same value.
inline constexpr double kBatchNormEpsilon = 1e-5;

// The shape of the ResNet (net/model.h draws it). Defaults: the default net,
// 6 blocks x 64 channels (docs/DESIGN.md, Network).
struct NetConfig {
  // The input set (net/encoder.h): "basic" or "connection".
  std::string input_features = "basic";
  int blocks = 6;     // residual blocks in the trunk, 1..64
  int channels = 64;  // trunk width, 8..512
  // Every k-th residual block (k, 2k, ...) adds a KataGo-style global pooling
  // bias: channel means and maxima over the board, through a linear layer,
  // added to every square. 0: no such block.
  int global_pooling_every = 3;
  int policy_channels = 32;  // width of the policy head's 1x1 convolution
  int value_channels = 32;   // width of the value head's 1x1 convolution
  int value_hidden = 128;    // hidden units of the value head
  bool moves_left = true;    // whether the moves-left head exists
  int moves_left_channels = 8;
  int moves_left_hidden = 64;
  // The width of each training-only head's 1x1 convolution
  // (net/training_heads.h), by TrainingHead; 0: no such head. Exports leave
  // them out, so the engine never runs them.
  std::array<int, kNumTrainingHeads> head_channels{};

  // Returns the input planes of the net's input set.
  InputFeatures features() const { return InputFeaturesOf(input_features); }
  int input_planes() const { return NumInputPlanes(features()); }

  // Declares the architecture's fields (core/param_visitor.h).
  void Visit(ParamVisitor& v);
  // Throws loa::Error naming the first field out of range.
  void Validate() const;
  // Returns whether block b (0-based) has the global pooling bias.
  bool HasGlobalPooling(int b) const { return global_pooling_every > 0 && (b + 1) % global_pooling_every == 0; }
  // Returns the config of this net's export: the same, without the
  // training-only heads.
  NetConfig Exported() const {
    NetConfig c = *this;
    c.head_channels.fill(0);
    return c;
  }
  // Returns the floating-point operations of one position's forward pass
  // at play (2 per multiply-add; convolutions and linear layers only).
  double FlopsPerPosition() const;
  // Returns the config as one JSON object, without the keys of the
  // training-only heads it lacks.
  std::string ToJson() const;
  // Returns the short name "BLOCKSxCHANNELS", e.g. "6x64".
  std::string ShortName() const;
  // Parses ToJson's output; throws ParseError naming an unknown key, a
  // missing key or a value of the wrong type, and Error for a bad range. A
  // key added after files were written (input_features, a training-only
  // head's width) may be missing: it then takes the value that those files
  // meant (the basic planes, no such head). The JSON also holds input_planes, for
  // readers of the file alone (scripts/read_export.py); it must agree.
  static NetConfig FromJson(const std::string& json);

  bool operator==(const NetConfig& o) const { return ToJson() == o.ToJson(); }
  bool operator!=(const NetConfig& o) const { return !(*this == o); }
};

// Returns whether a net of config `from` grows into one of `to` (GrowInto,
// net/model.h): the same config but for as many or more blocks and channels.
bool CanGrowInto(const NetConfig& from, const NetConfig& to);

}  // namespace loa
