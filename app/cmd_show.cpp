// loaz show: a position as a board, with its legal moves and status.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/formats.h"
#include "core/game.h"
#include "core/notation.h"

namespace loa::app {

int RunShow(int argc, char** argv) {
  CLI::App cli{"Print a position (docs/RULES.md position string): board, side to move, legal moves, status.", argv[0]};
  std::string fen, simultaneous = "draw", as;
  cli.add_option("FEN", fen,
                 "position string, e.g. '1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 b', or a FEN of cutechess or "
                 "PlayStrategy, or OpenSpiel's state string (docs/FORMATS.md, Positions)")
      ->required();
  cli.add_option("--as", as, "print the position alone in this format: loaz, cutechess, playstrategy, openspiel")
      ->check(CLI::IsMember({"loaz", "cutechess", "playstrategy", "openspiel"}));
  cli.add_option("--simultaneous", simultaneous, "both sides united by one move: draw or mover")
      ->check(CLI::IsMember({"draw", "mover"}));
  LOAZ_PARSE(cli, argc, argv);

  Rules rules;
  rules.simultaneous = simultaneous == "draw" ? Simultaneous::kDraw : Simultaneous::kMover;
  const Position start = ReadPosition(fen);
  if (!as.empty()) {
    std::printf("%s\n", FormatPosition(start, ParsePositionFormat(as)).c_str());
    return 0;
  }
  rules.size = start.size();  // the position string says the board's size
  const Game game(rules, start);
  const Position& pos = game.position();
  std::printf("%s\nposition: %s\nto move: %s\n", pos.Diagram().c_str(), pos.ToString().c_str(),
              pos.side_to_move() == kBlack ? "black" : "white");
  MoveList moves;
  game.LegalMoves(moves);
  std::printf("legal moves (%d):", moves.size());
  for (Move m : moves) std::printf(" %s", FormatMove(m).c_str());
  std::printf("\nstatus: %s", game.over() ? ResultName(game.result()) : "ongoing");
  if (game.over()) std::printf(" (%s)", ReasonName(game.reason()));
  std::printf("\n");
  return 0;
}

}  // namespace loa::app
