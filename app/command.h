#pragma once
// The subcommands of the `loaz` binary: one file each, listed in one table.

#include <string>
#include <vector>

namespace loa::app {

// A subcommand: its name, a one-line summary, and its entry point, which
// receives argv with argv[0] = "loaz NAME" and returns the exit code. Bad
// input is thrown as loa::Error and reported by main. `run` is null in the
// `loaz` binary for a command that needs LibTorch: main hands it to
// loaz-torch.
struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

// Returns every subcommand in the order `loaz help` lists them.
const std::vector<Command>& Commands();

int RunPerft(int argc, char** argv);
int RunSolve(int argc, char** argv);
int RunExam(int argc, char** argv);
int RunLabel(int argc, char** argv);
int RunReplay(int argc, char** argv);
int RunShow(int argc, char** argv);
int RunTrain(int argc, char** argv);
int RunSelfplay(int argc, char** argv);
int RunTrainer(int argc, char** argv);
int RunEval(int argc, char** argv);
int RunExport(int argc, char** argv);
int RunFork(int argc, char** argv);
int RunInitNet(int argc, char** argv);
int RunBench(int argc, char** argv);
int RunGtp(int argc, char** argv);
int RunUci(int argc, char** argv);
int RunXboard(int argc, char** argv);
int RunMatch(int argc, char** argv);
int RunTournament(int argc, char** argv);
int RunConfig(int argc, char** argv);
int RunServe(int argc, char** argv);
int RunTuneEval(int argc, char** argv);
int RunLaunch(int argc, char** argv);
int RunStatusCommand(int argc, char** argv);
int RunStop(int argc, char** argv);

}  // namespace loa::app
