// loaz replay: replay a game record under the rules, print where it ends.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/file_util.h"
#include "core/record.h"

namespace loa::app {

int RunReplay(int argc, char** argv) {
  CLI::App cli{
      "Replay a game record (docs/FORMATS.md: Game records; LOAZero's, cutechess's PGN or SGF GM[9])\n"
      "under its rules. Prints the final position string, then `RESULT REASON` (RESULT: black white\n"
      "draw ongoing; REASON: united both-united repetition cap timeout no-moves no-capture -), or\n"
      "with --to the record in another format. An illegal move is reported with its ply and position.",
      argv[0]};
  std::string path, simultaneous, rules_text, to;
  cli.add_option("FILE", path, "game record")->required();
  cli.add_option("--simultaneous", simultaneous, "both sides united by one move: draw or mover (overrides the record)")
      ->check(CLI::IsMember({"draw", "mover"}));
  cli.add_option("--rules", rules_text,
                 "replay under these rules instead of the record's: a rule set (olympiad, openspiel, cutechess, "
                 "playstrategy) and/or key=value options (docs/RULES.md)");
  cli.add_option("--to", to, "print the replayed game as a record: loaz, cutechess (PGN) or sgf")
      ->check(CLI::IsMember({"loaz", "cutechess", "sgf"}));
  LOAZ_PARSE(cli, argc, argv);

  const Record record = ParseRecord(ReadFile(path, kMaxTextBytes), path);
  Rules rules = record.rules;
  if (!rules_text.empty()) {
    rules = Rules::FromString(rules_text);
    if (rules_text.find("size=") == std::string::npos) rules.size = record.rules.size;
  }
  if (!simultaneous.empty()) rules.simultaneous = simultaneous == "draw" ? Simultaneous::kDraw : Simultaneous::kMover;
  Game game = ReplayRecord(record, record.rules, path);
  if (!(rules == record.rules)) {
    // Under other rules the game may end sooner: it is played to that end.
    const Game played = game;
    game = Game(rules, played.start());
    for (Move m : played.moves()) {
      if (game.over()) break;
      game.Play(m);
    }
    if (!game.over() && played.reason() == Reason::kTimeout)
      game.Forfeit(played.result() == Result::kBlackWins ? kWhite : kBlack);
    if (game.ply() < played.ply())
      std::fprintf(stderr, "loaz replay: under these rules the game ends at ply %d; the record goes on to ply %d\n",
                   game.ply(), played.ply());
  }
  if (!to.empty()) {
    const Tags tags = DescriptiveTags(record.tags);
    const std::string text = to == "sgf"         ? FormatSgf(game, tags)
                             : to == "cutechess" ? FormatCutechessPgn(game, tags)
                                                 : FormatRecord(game, tags);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::printf("%s\n%s %s\n", game.position().ToString().c_str(), ResultName(game.result()), ReasonName(game.reason()));
  return 0;
}

}  // namespace loa::app
