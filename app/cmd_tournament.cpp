// loaz tournament: a round robin and its Bradley-Terry ratings table.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "app/match_options.h"
#include "core/file_util.h"
#include "play/tournament.h"

namespace loa::app {

int RunTournament(int argc, char** argv) {
  CLI::App cli{
      "Play a round robin between the players (README: Players) and rate them by maximum\n"
      "likelihood (Bradley-Terry), anchored at one player. Progress goes to standard error,\n"
      "the table to standard output.",
      argv[0]};
  TournamentConfig config;
  std::string summary, rules;
  cli.add_option("SPEC", config.players, "two or more players")->required()->expected(2, -1);
  cli.add_option("--games", config.games_per_pair, "games per pair")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cli.add_option("--anchor", config.anchor, "the player whose rating is fixed (default: the first)");
  cli.add_option("--anchor-elo", config.anchor_elo, "the anchor's rating")->capture_default_str();
  cli.add_option("--summary", summary, "write the table and every match as JSON to this file");
  AddMatchOptions(cli, config.match, rules, nullptr);
  LOAZ_PARSE(cli, argc, argv);

  ApplyRules(config.match, rules);
  config.on_progress = [&](int i, int j, const MatchProgress& p) {
    ReportProgress(config.players[i] + " vs " + config.players[j] + ": ", p);
  };
  const TournamentResult result = loa::RunTournament(config);
  std::fputs(result.Table().c_str(), stdout);
  if (!summary.empty()) WriteFileAtomic(summary, result.ToJson().dump(2) + "\n");
  return 0;
}

}  // namespace loa::app
