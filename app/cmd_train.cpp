// loaz train: a whole training run in one process (self-play, trainer,
// evaluation), started from a config or resumed from its run directory.

#include "app/command.h"
#include "app/train_command.h"

namespace loa::app {

int RunTrain(int argc, char** argv) {
  return RunTrainingCommand(
      argc, argv,
      "Run a training run: self-play workers, the trainer and evaluation in one process.\n"
      "`loaz train CONFIG` starts (or, with the same config, resumes) the run named by the config;\n"
      "`loaz train --run DIR` resumes a run from its directory, after a stop or a crash.\n"
      "Ctrl-C stops cleanly; progress goes to the terminal, DIR/log.txt and DIR/metrics.jsonl.",
      train::RunParts{});
}

}  // namespace loa::app
