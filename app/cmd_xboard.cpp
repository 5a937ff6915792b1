// loaz xboard: the engine over the Chess Engine Communication Protocol
// (xboard, CECP 2) as cutechess and XBoard speak it for `linesofaction`
// (docs/ENGINE.md, "xboard as cutechess and XBoard speak it").

#include "app/cli.h"

#include <iostream>

#include "app/command.h"
#include "play/mcts_player.h"
#include "play/xboard_engine.h"

namespace loa::app {

int RunXboard(int argc, char** argv) {
  CLI::App cli{
      "Speak xboard (CECP 2) on standard input and output, as cutechess-cli and XBoard do for the variant\n"
      "linesofaction: moves as b1d3 (a pass @@@@), positions by setboard FEN (p: Black, P: White), the clock\n"
      "by level, st, time and otim; results in the chess manner (1-0: White wins); options Player, Net, cores.",
      argv[0]};
  std::string player_spec = DefaultEngineSpec();
  cli.add_option("--player", player_spec, "the player that searches (README: Players)")->capture_default_str();
  bool white_first = false;
  cli.add_flag("--white-first", white_first,
               "call the side that moves first White, as XBoard needs (it starts every game of a variant it does not "
               "know with White): FENs and results with the colours swapped");
  LOAZ_PARSE(cli, argc, argv);
  XboardEngine engine(player_spec, white_first);
  engine.Run(std::cin, std::cout);
  return 0;
}

}  // namespace loa::app
