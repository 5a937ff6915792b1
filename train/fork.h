#pragma once
// `loaz fork`: a new run that goes on from a checkpoint of another, with
// some settings changed (docs/RUNS.md, "Forking a run"). The two runs then
// share everything up to the checkpoint, so that a change to the later hours
// of a run (an anneal, a larger net) is tested at the cost of those hours
// alone.

#include <cstdint>
#include <string>
#include <vector>

namespace loa::train {

// How a grown net starts, as FORK.txt and `loaz fork` say it.
inline constexpr char kGrowthNote[] =
    "the same function: new blocks at identity, new channels unread by the old ones; the optimizer afresh";

// What ForkRun made.
struct ForkSummary {
  int64_t step = 0;        // the checkpoint the fork goes on from
  double hours = 0;        // its run time (the run.max_hours clock)
  int checkpoints = 0;     // checkpoints in the fork (those up to step)
  int shards = 0;          // replay shards: those the trainer had read by step
  int64_t games = 0;       // the games in them
  std::string grown_from;  // the net's shape before it grew ("4x32"), empty when it did not
  std::string grown_to;    // its shape after ("6x32")
};

// Creates the run directory `to` from run directory `from` at its
// checkpoint `step` (-1: the newest readable one) with `overrides`
// ("section.key=value") applied to its config: the checkpoints up to step,
// the replay shards and game records that the trainer had counted at step
// (its games_seen counter, oldest first), the metrics up to the
// checkpoint's event, the evaluations of checkpoints up to step, and
// FORK.txt saying where it came from. Files are hard-linked where the
// file system allows (a fork costs no space), else copied. An override
// may change what a resume may change; besides, net.blocks and
// net.channels may grow: the fork's checkpoint then holds the net grown by
// GrowInto (the same function: kGrowthNote) with a fresh optimizer state,
// and no older checkpoints. The fork is built under a temporary name and renamed
// into place, so `to` is whole or absent. Throws Error (a bad override,
// `to` exists, no such checkpoint) and IoError.
ForkSummary ForkRun(const std::string& from, int64_t step, const std::string& to,
                    const std::vector<std::string>& overrides);

}  // namespace loa::train
