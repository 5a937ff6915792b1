#pragma once
// Checkpoints: what a training run needs to resume. The model, the
// optimizer state (any torch::optim optimizer), the step, named counters,
// the architecture and the encoder version, in one LibTorch archive written
// atomically (temporary file and rename).

#include <cstdint>
#include <map>
#include <string>

#include <torch/torch.h>

#include "net/export.h"
#include "net/model.h"

namespace loa {

// The training state saved beside the weights.
struct TrainingState {
  int64_t step = 0;                         // optimizer steps taken
  std::map<std::string, int64_t> counters;  // e.g. games, samples seen
  std::string rules;                        // Rules::ToString() of the run
};

// What a checkpoint says of itself, read without building a model.
struct CheckpointInfo {
  NetConfig config;
  int encoder_version = 0;
  TrainingState state;
  bool has_optimizer = false;
  bool has_average = false;  // holds a weight average (train.average_steps)
};

// Writes model (its tensors as they are, on any device), optimizer and
// average (each when not null: average is a model of the same architecture
// holding an average of model's recent weights) and state to path
// atomically, with a checksum of each part's bytes; loading maps the
// tensors to the device of the model loaded into. Never replaces a file
// already at path. Not thread-safe with training on the same model. Throws
// IoError (path exists, or the write fails) and Error (a model holds a NaN
// or an infinity, named).
void SaveCheckpoint(const std::string& path, LoaNet& model, torch::optim::Optimizer* optimizer,
                    const TrainingState& state, LoaNet* average = nullptr);

// Returns the header of the checkpoint at path. Throws IoError for a
// missing file and Error for a truncated one, one that is not a LOAZero
// checkpoint, or one of another checkpoint or encoder version.
CheckpointInfo ReadCheckpointInfo(const std::string& path);

// Loads the checkpoint at path into model (on the model's device) and, when
// optimizer is not null, its state into optimizer (which must be of the
// type saved and built over model->parameters()); when average is not
// null, the checkpoint's weight average into it, or model's weights when it
// has none. Returns the training state. Throws as ReadCheckpointInfo does,
// and Error when the architecture differs from the model's, the optimizer
// state is missing, a checksum does not match (a damaged file) or a weight
// is not finite.
TrainingState LoadCheckpoint(const std::string& path, LoaNet& model, torch::optim::Optimizer* optimizer,
                             LoaNet* average = nullptr);

// Returns a new CPU model built from the checkpoint's architecture, in eval
// mode, with the weights that play: the weight average where the checkpoint
// has one (KataGo's self-play and exports use an average of recent
// weights), else the trained weights. Fills *state when not null.
LoaNet LoadModel(const std::string& path, TrainingState* state = nullptr);

// Returns the export of a checkpoint (what `loaz export` writes).
ExportedNet ExportCheckpoint(const std::string& path);

// Returns a freshly initialised net of config (PyTorch's default
// initialisation, seeded with seed; batch norms at identity) as an export.
// Not thread-safe (LibTorch's global RNG).
ExportedNet NewNet(const NetConfig& config, uint64_t seed, const std::string& rules);

// Writes a freshly initialised net to path: a checkpoint (step 0, no
// optimizer state) when path ends in ".pt", else an export. Throws Error.
void WriteNewNet(const std::string& path, const NetConfig& config, uint64_t seed, const std::string& rules);

}  // namespace loa
