// loaz uci: the engine over UCI as cutechess speaks it for `linesofaction`
// (docs/ENGINE.md, "UCI as cutechess speaks it").

#include "app/cli.h"

#include <iostream>

#include "app/command.h"
#include "play/mcts_player.h"
#include "play/uci_engine.h"

namespace loa::app {

int RunUci(int argc, char** argv) {
  CLI::App cli{
      "Speak UCI on standard input and output, as cutechess-cli does for its variant linesofaction:\n"
      "moves as b1d3, positions as `position startpos|fen FEN moves ...` (p: Black, P: White), `go` with\n"
      "wtime btime winc binc movestogo movetime nodes infinite; options UCI_Variant, Threads, Player, Net.",
      argv[0]};
  std::string player_spec = DefaultEngineSpec();
  cli.add_option("--player", player_spec, "the player that searches (README: Players)")->capture_default_str();
  LOAZ_PARSE(cli, argc, argv);
  UciEngine engine(player_spec);
  engine.Run(std::cin, std::cout);
  return 0;
}

}  // namespace loa::app
