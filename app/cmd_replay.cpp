// loaz replay: replay a game record under the rules, print where it ends.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/file_util.h"
#include "core/record.h"

namespace loa::app {

int RunReplay(int argc, char** argv) {
  CLI::App cli{
      "Replay a game record (docs/FORMATS.md: Game records). Prints the final position string,\n"
      "then `RESULT REASON` (RESULT: black white draw ongoing; REASON: united both-united\n"
      "repetition cap -). An illegal move is reported with its ply and position.",
      argv[0]};
  std::string path, simultaneous;
  cli.add_option("FILE", path, "game record")->required();
  cli.add_option("--simultaneous", simultaneous, "both sides united by one move: draw or mover (overrides the record)")
      ->check(CLI::IsMember({"draw", "mover"}));
  LOAZ_PARSE(cli, argc, argv);

  const Record record = ParseRecord(ReadFile(path, kMaxTextBytes), path);
  Rules rules = record.rules;
  if (!simultaneous.empty()) rules.simultaneous = simultaneous == "draw" ? Simultaneous::kDraw : Simultaneous::kMover;
  const Game game = ReplayRecord(record, rules, path);
  std::printf("%s\n%s %s\n", game.position().ToString().c_str(), ResultName(game.result()), ReasonName(game.reason()));
  return 0;
}

}  // namespace loa::app
