// loaz gtp: the engine's text protocol (GTP version 2 framing, LOA commands)
// on standard input and output.

#include "app/cli.h"

#include <iostream>

#include "app/command.h"
#include "play/gtp_engine.h"
#include "play/mcts_player.h"

namespace loa::app {

int RunGtp(int argc, char** argv) {
  CLI::App cli{
      "Speak the text protocol on standard input and output (README: Text protocol):\n"
      "GTP version 2 framing and commands, colours b/black/w/white, moves as `b1-d3`,\n"
      "and loa_position, loa_rules, loa_legal_moves, loa_result, loa_loadgame.",
      argv[0]};
  std::string player_spec = DefaultEngineSpec(), rules_text;
  cli.add_option("--player", player_spec, "the player that answers genmove (README: Players)")->capture_default_str();
  cli.add_option("--rules", rules_text, "rule options, e.g. \"simultaneous=mover start=scrambled\"");
  bool verbose = false;
  cli.add_flag("--verbose", verbose, "after each genmove, write the search's depth, score, nodes and speed to stderr");
  LOAZ_PARSE(cli, argc, argv);

  GtpEngine engine(MakePlayer(player_spec), Rules::FromString(rules_text));
  if (verbose) engine.set_log(&std::cerr);
  engine.Run(std::cin, std::cout);
  return 0;
}

}  // namespace loa::app
