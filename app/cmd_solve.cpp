// loaz solve: a position proven won, lost or drawn by the df-pn solver
// (docs/SOLVER.md), with the proving move, its line and the proof's size.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/error.h"
#include "core/formats.h"
#include "core/notation.h"
#include "solve/dfpn.h"

namespace loa::app {

int RunSolve(int argc, char** argv) {
  CLI::App cli{
      "Prove a position won, lost or drawn for the side to move (df-pn, docs/SOLVER.md). The first line of standard "
      "output is the result: won, lost, drawn or unknown (the limits came first).",
      argv[0]};
  std::string fen, rules_text;
  bool start = false;
  double seconds = 60;
  int64_t nodes = 0, memory_mb = 256;
  int threads = 1;
  auto* fen_option = cli.add_option("FEN", fen, "the position string (its ranks say the board's size)");
  cli.add_flag("--start", start, "the start position of the rules (--rules start=... size=...)")->excludes(fen_option);
  cli.add_option("--rules", rules_text, "rule options, e.g. \"size=6 simultaneous=mover\" (docs/RULES.md)");
  cli.add_option("--time", seconds, "seconds for the whole proof (0: no limit)")->check(CLI::NonNegativeNumber);
  cli.add_option("--nodes", nodes, "positions to search at most (0: no limit)")->check(CLI::NonNegativeNumber);
  cli.add_option("--memory", memory_mb, "megabytes of the transposition table")->check(CLI::Range(1, 1 << 20));
  cli.add_option("--threads", threads, "threads sharing the table")->check(CLI::Range(1, 256));
  LOAZ_PARSE(cli, argc, argv);
  if (fen.empty() && !start) throw UsageError("loaz solve: give a position string or --start");

  Rules rules = Rules::FromString(rules_text);
  Position pos = rules.StartPosition();
  if (!fen.empty()) {
    pos = ReadPosition(fen);
    if (rules_text.find("size") == std::string::npos) rules.size = pos.size();  // the string's size
  }
  const Game game(rules, pos);
  solve::Solver solver(memory_mb);
  solve::SolveLimits limits;
  limits.seconds = seconds;
  limits.nodes = nodes;
  limits.threads = threads;
  const solve::SolveResult r = solver.Solve(game, limits);
  std::printf("%s\n", solve::OutcomeName(r.outcome));
  if (!r.best_move.is_null()) std::printf("move: %s\n", FormatMove(r.best_move).c_str());
  if (!r.line.empty()) {
    std::printf("line:");
    for (Move m : r.line) std::printf(" %s", FormatMove(m).c_str());
    std::printf("\n");
  }
  if (r.outcome == solve::Outcome::kWin || r.outcome == solve::Outcome::kLoss)
    std::printf("proof: %d plies at most, %lld positions\n", r.proof_plies, static_cast<long long>(r.proof_size));
  std::printf("searched: %lld positions in %.2f s (%.0f a second), table %.0f%% full\n",
              static_cast<long long>(r.nodes), r.seconds, r.nodes / std::max(r.seconds, 1e-9),
              100.0 * solver.used() / solver.capacity());
  return 0;
}

}  // namespace loa::app
