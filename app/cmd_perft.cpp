// loaz perft: move-sequence counts, the rules' checksum, and a speed figure.

#include "app/cli.h"

#include <chrono>
#include <cstdio>

#include "app/command.h"
#include "core/formats.h"
#include "core/notation.h"
#include "core/perft.h"

namespace loa::app {

int RunPerft(int argc, char** argv) {
  CLI::App cli{
      "Count the move sequences of exactly DEPTH plies (docs/RULES.md, Perft).\n"
      "The count is the last line of standard output; the speed goes to standard error.",
      argv[0]};
  std::string fen, start = "standard";
  int depth = 1, threads = 1, size = kBoardSize;
  bool divide = false;
  auto* fen_option = cli.add_option("--fen", fen, "position string to count from");
  cli.add_option("--start", start, "start position when no --fen is given")
      ->check(CLI::IsMember({"standard", "scrambled"}))
      ->excludes(fen_option);
  cli.add_option("--size", size, "the board's size when no --fen is given (the position string has its own)")
      ->check(CLI::IsMember({6, 7, 8}))
      ->excludes(fen_option);
  cli.add_option("--depth", depth, "plies to count")->required()->check(CLI::Range(0, 20));
  cli.add_flag("--divide", divide, "print MOVE COUNT for each root move first");
  cli.add_option("--threads", threads, "threads that share the root moves")->check(CLI::Range(1, 256));
  LOAZ_PARSE(cli, argc, argv);

  const Position pos = fen_option->count() == 0
                           ? Position::Start(start == "scrambled" ? StartKind::kScrambled : StartKind::kStandard, size)
                           : ReadPosition(fen);
  const auto begin = std::chrono::steady_clock::now();
  uint64_t total = 0;
  if (depth == 0) {
    total = 1;
  } else {
    for (const auto& [move, count] : PerftDivide(pos, depth, threads)) {
      if (divide) std::printf("%s %llu\n", FormatMove(move).c_str(), static_cast<unsigned long long>(count));
      total += count;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  std::fflush(stdout);
  std::fprintf(stderr, "perft %d: %llu leaves in %.3f s, %.1f M leaves/s, %d thread%s\n", depth,
               static_cast<unsigned long long>(total), seconds, total / std::max(seconds, 1e-9) / 1e6, threads,
               threads == 1 ? "" : "s");
  return 0;
}

}  // namespace loa::app
