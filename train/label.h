#pragma once
// Solver labels for a run's samples (docs/TRAINING.md, D2): positions drawn
// from a run's replay shards, each solved by df-pn within a node budget, the
// proven ones written as shards whose value target is the proof, for a net
// trained on the truth instead of its games' outcomes.

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/game.h"
#include "run/run_dir.h"

namespace loa::train {

struct LabelOptions {
  Rules rules;                // the run's; solved without its move cap
  int64_t nodes = 20000;      // df-pn positions searched for each sample
  int64_t positions = 50000;  // samples to solve, drawn evenly over the run
  int threads = 1;            // solvers at once, a table each
  int64_t memory_mb = 64;     // each solver's table
  uint64_t seed = 1;          // the draw
  // Held out (the exam's): games by record name (WRITER_SEQ_gK), positions by hash.
  std::unordered_set<std::string> held_out_games;
  std::unordered_set<uint64_t> held_out_positions;
};

// What a labelling did, and of the proven samples, by the proof's length,
// how many had a game outcome other than the proof.
struct LabelCounts {
  int64_t samples = 0;   // in the run's shards
  int64_t held_out = 0;  // of the exam's games or positions
  int64_t drawn = 0;     // picked (distinct positions)
  int64_t proven = 0;    // of those, settled within the budget
  int64_t shards = 0;    // written
  struct Row {
    std::string plies;
    int64_t proven = 0, against = 0;  // proven; and whose game ended otherwise
  };
  std::vector<Row> rows = {{"0-1"}, {"2-5"}, {"6-9"}, {"10-13"}, {"14 or more"}, {"all"}};
};

// Draws opts.positions distinct samples from the shards of `from` (none of
// the held-out games or positions), solves each, and writes to
// `to_selfplay` (a folder, created) one shard for each shard of `from`
// that has a proven sample, under its name: its proven samples, each with
// the proof as its outcome and its root value (flagged kProven), its
// policy, reply, final board and fields as they were. Each written atomically.
// `progress` hears the count solved now and then. With `control_selfplay`
// (a folder, or empty for none), the same proven samples are written there
// too with their games' outcomes as they were: the control of a net trained
// on the truth, the same positions with self-play's targets.
LabelCounts LabelShards(const run::RunDir& from, const std::string& to_selfplay, const LabelOptions& opts,
                        const std::function<void(int64_t solved, int64_t of)>& progress = {},
                        const std::string& control_selfplay = "");

}  // namespace loa::train
