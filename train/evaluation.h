#pragma once
// Evaluation during and after a run: matches of checkpoints against the
// baseline ladder (eval.opponents) and the previous best checkpoint, through
// the match harness; every match result kept in eval/matches.jsonl; one
// Bradley-Terry ratings table over all of them, anchored at the first
// ladder player (Elo 0).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "play/match.h"
#include "play/ratings.h"
#include "run/checkpoints.h"
#include "run/config.h"
#include "run/run_context.h"
#include "run/run_dir.h"

namespace loa::train {

// One match result as eval/matches.jsonl keeps it, from a's side.
struct MatchRecord {
  std::string a, b;  // "step N" for checkpoints, the spec for ladder players
  int wins = 0, draws = 0, losses = 0;
  double hours = -1;  // a checkpoint's run time (-1: a ladder match, or not recorded)
};

// One side of an evaluation match: its name in the run's ratings ("step N"
// or a ladder player's spec), the text matches.jsonl records for it, and
// the factory of its player (none for a ladder player: its spec makes it).
struct EvalSide {
  std::string name, spec;
  PlayerFactory make;
};

// Returns the side that plays the checkpoint at `path`: the run's own
// search (config.mcts as the engine plays it: no noise, no move sampling,
// full searches) within eval.time or eval.playouts, its net loaded once
// on run.device and shared by the match's games. No spec string is parsed
// on the way. Throws Error naming the file when the net cannot be read.
EvalSide CheckpointSide(const std::string& name, const std::string& path, const run::Config& config);

// Returns every record of eval/matches.jsonl (none if it does not exist);
// a line that is not a match record (a write cut short, damage) is
// skipped. With `damage`, a file that cannot be read or has such lines is
// named there, with what was wrong (no word when nothing was).
std::vector<MatchRecord> ReadMatchRecords(const run::RunDir& run, std::string* damage = nullptr);

// Returns the lines of eval/matches.jsonl that a fork at checkpoint `step`
// keeps, as written: the ladder's matches and those of checkpoints up to
// step (none if the file does not exist).
std::vector<std::string> MatchLinesUpTo(const run::RunDir& run, int64_t step);

// The ratings of every player in records, anchored at `anchor` (Elo 0; the
// first player when it does not occur), best first.
std::vector<Rating> RateAll(const std::vector<MatchRecord>& records, const std::string& anchor);

// Seconds the evaluation in a training run waits after a round that took
// `seconds` playing `threads` games at once on a machine of `cores`, so that
// over the round and the wait it has used at most `max_share` of the cores
// (eval.max_share): seconds * (min(threads, cores) / (cores * max_share) - 1),
// and never less than 0.
double EvalPauseSeconds(double seconds, int threads, int cores, double max_share);

// Plays evaluation matches and records them. Not thread-safe: one per run.
class CheckpointRater {
 public:
  explicit CheckpointRater(run::RunContext& run);

  // Plays checkpoint `step` against each ladder opponent, and against the
  // best-rated checkpoint before it when eval.previous_best, up to `games`
  // games each: a pair that has played before plays only the games it
  // lacks (so a strength benchmark tops up what the run played); when
  // none lacks any, nothing is written. The ladder's own matches are
  // played once, first. Appends each result to
  // eval/matches.jsonl, writes metrics events (eval, rating) stamped with
  // `hours`, and rewrites eval/ratings.txt. Returns false when a stop
  // request cut it short. `games` overrides eval.games when positive.
  bool Rate(int64_t step, double hours, int games = 0);

  // Rewrites eval/ratings.txt and eval/ratings.json from every record;
  // returns the table's text.
  std::string WriteRatings() { return WriteRatings(ReadMatchRecords(run_.dir)); }

 private:
  // Returns the player fixed at Elo 0: the first ladder opponent, or "" (the
  // first player in the records) without a ladder.
  std::string Anchor() const;
  std::string WriteRatings(const std::vector<MatchRecord>& records);
  // Plays what a pair lacks of `games` and appends it to eval/matches.jsonl
  // and to *records (the file's records, read once a Rate).
  bool PlayAndRecord(const EvalSide& a, const EvalSide& b, int games, int64_t step, double hours,
                     std::vector<MatchRecord>* records);
  void EnsureLadder(int games, double hours, std::vector<MatchRecord>* records);

  run::RunContext& run_;  // its config, directory, log and metrics
};

}  // namespace loa::train
