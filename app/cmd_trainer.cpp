// loaz trainer: the trainer of a run alone, fed by `loaz selfplay` processes.

#include "app/command.h"
#include "app/train_command.h"

namespace loa::app {

int RunTrainer(int argc, char** argv) {
  train::RunParts parts;
  parts.selfplay = false;
  return RunTrainingCommand(argc, argv,
                            "Run the trainer of a run without self-play: it trains from the replay shards that\n"
                            "`loaz selfplay --run DIR` processes (on this machine or others sharing DIR) write,\n"
                            "writes checkpoints and evaluates them as the config says. `loaz trainer CONFIG`\n"
                            "creates the run directory (or resumes it); `loaz trainer --run DIR` resumes.\n"
                            "Ctrl-C stops cleanly.",
                            parts);
}

}  // namespace loa::app
