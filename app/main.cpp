// loaz: the one binary of LOAZero. `loaz help` lists the subcommands.

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "app/command.h"
#include "core/error.h"

namespace loa::app {

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"perft", "count move sequences to a depth (rules checksum and speed)", RunPerft},
      {"replay", "replay a game record and print its final position and result", RunReplay},
      {"show", "print a position: board, side to move, legal moves, status", RunShow},
      {"train", "run a training run: self-play, trainer, evaluation (CONFIG or --run DIR)", RunTrain},
      {"selfplay", "self-play workers alone for a run directory (scaling out)", RunSelfplay},
      {"trainer", "the trainer alone for a run directory (scaling out)", RunTrainer},
      {"eval", "rate every checkpoint of a run in one Elo table", RunEval},
      {"export", "write a checkpoint's net as a standalone safetensors file", RunExport},
      {"init-net", "write a freshly initialised net (checkpoint or export)", RunInitNet},
      {"bench", "speed: `bench net` (LibTorch vs Eigen), `bench mcts` (playouts/s)", RunBench},
      {"gtp", "speak the text protocol (GTP framing, LOA commands) on stdin/stdout", RunGtp},
      {"match", "play two players against each other: Elo, interval, SPRT", RunMatch},
      {"tournament", "round robin and Bradley-Terry ratings table", RunTournament},
  };
  return kCommands;
}

namespace {

void PrintHelp() {
  std::printf("loaz: LOAZero, self-play learning for Lines of Action\n\nusage: loaz COMMAND [ARGS]\n\ncommands:\n");
  for (const Command& c : Commands()) std::printf("  %-12s %s\n", c.name, c.summary);
  std::printf("  %-12s %s\n", "help", "this list; `loaz help COMMAND` or `loaz COMMAND --help` for one");
}

const Command* Find(const char* name) {
  for (const Command& c : Commands())
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

}  // namespace
}  // namespace loa::app

int main(int argc, char** argv) {
  using loa::app::Find;
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    if (argc >= 3 && Find(argv[2])) {
      std::string name = std::string("loaz ") + argv[2];
      char help[] = "--help";
      char* args[] = {name.data(), help, nullptr};
      return Find(argv[2])->run(2, args);
    }
    loa::app::PrintHelp();
    return argc < 2 ? 2 : 0;
  }
  const loa::app::Command* command = Find(argv[1]);
  if (!command) {
    std::fprintf(stderr, "loaz: unknown command '%s' (see `loaz help`)\n", argv[1]);
    return 2;
  }
  std::string name = std::string("loaz ") + argv[1];
  argv[1] = name.data();
  try {
    return command->run(argc - 1, argv + 1);
  } catch (const loa::Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", name.c_str(), e.what());
  }
  return 1;
}
