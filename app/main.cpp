// loaz and loaz-torch: the binaries of LOAZero, one command table. `loaz help`
// lists the subcommands. `loaz` does not load LibTorch: it runs the commands
// that need none and hands the others to loaz-torch, the same program with
// LibTorch, by exec (docs/DESIGN.md, Build).

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"

#if LOAZ_TORCH_COMMANDS
#include "net/torch_evaluator.h"
#define LOAZ_TORCH_ENTRY(f) f
#else
#define LOAZ_TORCH_ENTRY(f) nullptr
#endif

namespace loa::app {

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"perft", "count move sequences to a depth (rules checksum and speed)", RunPerft},
      {"replay", "replay a game record and print its final position and result", RunReplay},
      {"show", "print a position: board, side to move, legal moves, status", RunShow},
      {"solve", "prove a position won, lost or drawn (df-pn): the move, its line, the proof's size", RunSolve},
      {"train", "run a training run: self-play, trainer, evaluation (CONFIG or --run DIR)", LOAZ_TORCH_ENTRY(RunTrain)},
      {"selfplay", "self-play workers alone for a run directory (scaling out)", LOAZ_TORCH_ENTRY(RunSelfplay)},
      {"trainer", "the trainer alone for a run directory (scaling out)", LOAZ_TORCH_ENTRY(RunTrainer)},
      {"eval", "rate every checkpoint of a run in one Elo table", LOAZ_TORCH_ENTRY(RunEval)},
      {"exam", "mark a run's checkpoints against the solver's proofs (value, move, play from proven wins)",
       LOAZ_TORCH_ENTRY(RunExam)},
      {"label", "label a run's samples by the solver's proofs, as shards for a net trained on the truth",
       LOAZ_TORCH_ENTRY(RunLabel)},
      {"export", "write a checkpoint's net as a standalone safetensors file", LOAZ_TORCH_ENTRY(RunExport)},
      {"fork", "a new run from a run's checkpoint, settings changed (a larger net: it grows)",
       LOAZ_TORCH_ENTRY(RunFork)},
      {"launch", "put a run on a cluster: `launch slurm CONFIG` submits its trainer and self-play jobs", RunLaunch},
      {"status", "what a run is doing: its state, checkpoint, jobs and self-play processes", RunStatusCommand},
      {"stop", "stop a run cleanly, wherever its processes run", RunStop},
      {"init-net", "write a freshly initialised net (checkpoint or export)", LOAZ_TORCH_ENTRY(RunInitNet)},
      {"bench",
       "speed: `bench net` (each evaluator backend), `bench mcts` (playouts/s), `bench train` (samples/s), "
       "`bench scaling` (each against threads), `bench ab` (the baseline)",
       LOAZ_TORCH_ENTRY(RunBench)},
      {"gtp", "speak the text protocol (GTP framing, LOA commands) on stdin/stdout", RunGtp},
      {"uci", "speak UCI as cutechess does for linesofaction, on stdin/stdout", RunUci},
      {"xboard", "speak xboard (CECP 2) as cutechess and XBoard do for linesofaction", RunXboard},
      {"match", "play two players against each other: Elo, interval, SPRT", RunMatch},
      {"tournament", "round robin and Bradley-Terry ratings table", RunTournament},
      {"config", "list every config key and player option: range, default, help", RunConfig},
      {"serve", "the web front end: play in the browser, watch runs learn", RunServe},
      {"tune-eval", "fit the alpha-beta baseline's weights to self-play positions (Texel tuning)", RunTuneEval},
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

// Replaces this process by loaz-torch (beside this binary) with the same
// arguments; returns only on failure, with the exit code after a message.
int ExecTorchBinary(char** argv, const char* command) {
  std::string path = ThisExecutable();
  if (!path.empty()) path = path.substr(0, path.rfind('/') + 1) + "loaz-torch";
  if (path.empty() || access(path.c_str(), X_OK) != 0) {
    std::fprintf(stderr,
                 "loaz %s: needs LibTorch, and this build has none (no loaz-torch beside loaz; build with "
                 "-DLOAZ_TORCH=ON)\n",
                 command);
    return 1;
  }
  std::fflush(nullptr);
  argv[0] = path.data();
  execv(path.c_str(), argv);
  std::fprintf(stderr, "loaz %s: cannot run %s: %s\n", command, path.c_str(), std::strerror(errno));
  return 1;
}

// Makes OpenMP's waiting threads sleep (OMP_WAIT_POLICY=PASSIVE) unless the
// environment chose: by default libgomp spins up to some milliseconds when a
// thread waits for its team, and where processes share the cores (A/B arms,
// a match beside a run) a spinning thread takes the core its partner needs
// (docs/HARDWARE.md). libgomp
// reads the variable when it loads, before main, so the process runs itself
// again with it set; if that fails it goes on as it is.
void WaitPassivelyUnlessTold(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  std::string self = ThisExecutable();
  if (self.empty()) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  std::fflush(nullptr);
  execv(self.c_str(), argv);
}

}  // namespace
}  // namespace loa::app

int main(int argc, char** argv) {
  using loa::app::Find;
  loa::app::WaitPassivelyUnlessTold(argv);
#if LOAZ_TORCH_COMMANDS
  loa::InstallTorchBackend();
#endif
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    if (argc >= 3 && Find(argv[2])) {
      if (!Find(argv[2])->run) return loa::app::ExecTorchBinary(argv, argv[2]);
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
    std::fprintf(stderr, "loaz: unknown command '%s' (see `loaz help`)\n", loa::Excerpt(argv[1]).c_str());
    return 2;
  }
  if (!command->run) return loa::app::ExecTorchBinary(argv, argv[1]);
  std::string name = std::string("loaz ") + argv[1];
  argv[1] = name.data();
  try {
    return command->run(argc - 1, argv + 1);
  } catch (const loa::UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    return 2;
  } catch (const loa::Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", name.c_str(), e.what());
  }
  return 1;
}
