// loaz match: two players, openings played with colours swapped, Elo with
// its interval, optional SPRT.

#include <unistd.h>
#include "app/cli.h"

#include <cstdio>
#include <sstream>

#include "app/command.h"
#include "app/match_options.h"
#include "core/error.h"
#include "core/file_util.h"
#include "play/match.h"

namespace loa::app {

namespace {

// Parses "elo0,elo1,alpha,beta"; throws ParseError naming the text.
SprtConfig ParseSprt(const std::string& text) {
  SprtConfig config;
  std::istringstream in(text);
  char c1 = 0, c2 = 0, c3 = 0;
  if (!(in >> config.elo0 >> c1 >> config.elo1 >> c2 >> config.alpha >> c3 >> config.beta) || c1 != ',' || c2 != ',' ||
      c3 != ',' || !in.eof())
    throw ParseError("--sprt '" + text + "': expected elo0,elo1,alpha,beta");
  if (!(config.elo1 > config.elo0)) throw ParseError("--sprt '" + text + "': elo1 must be above elo0");
  if (!(config.alpha > 0 && config.alpha < 0.5 && config.beta > 0 && config.beta < 0.5))
    throw ParseError("--sprt '" + text + "': alpha and beta must lie in (0, 0.5)");
  return config;
}

// --clock MAIN[+INC], seconds: each number whole, MAIN from 0 to 1e7, INC
// from 0 to 1e4 and only with a MAIN.
void ParseClock(const std::string& text, MatchConfig& config) {
  const size_t plus = text.find('+');
  const auto number = [&](const std::string& part, double max) {
    size_t used = 0;
    double value = -1;
    try {
      value = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !(value >= 0 && value <= max))
      throw ParseError("--clock '" + Excerpt(text, 40) + "': expected MAIN[+INC] in seconds, e.g. 60 or 10+0.1");
    return value;
  };
  config.clock_seconds = number(text.substr(0, plus), 1e7);
  config.clock_increment = plus == std::string::npos ? 0 : number(text.substr(plus + 1), 1e4);
  if (config.clock_increment > 0 && config.clock_seconds <= 0)
    throw ParseError("--clock '" + Excerpt(text, 40) + "': an increment needs a main time");
}

}  // namespace

void ReportProgress(const std::string& prefix, const MatchProgress& progress) {
  static const bool terminal = isatty(STDERR_FILENO);
  std::fprintf(stderr, terminal ? "\r%s%s\033[K" : "%s%s\n", prefix.c_str(), FormatProgress(progress).c_str());
  if (terminal && progress.games_done == progress.games_total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

void AddMatchOptions(CLI::App& cli, MatchConfig& config, std::string& rules, std::string* sprt) {
  cli.add_option("--openings", config.openings, "none, random:plies=K, or a file of position strings")
      ->capture_default_str();
  cli.add_option("--threads", config.threads, "games played at once")->check(CLI::Range(1, 256))->capture_default_str();
  cli.add_option("--seed", config.seed, "seed of the openings and the players' random choices")->capture_default_str();
  cli.add_option("--max-plies", config.rules.max_plies, "move cap: a game reaching it is a draw (0: none)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cli.add_option("--rules", rules, "the other rule options, e.g. \"simultaneous=mover start=scrambled\"");
  cli.add_option("--out", config.out_dir, "folder for one record per game");
  cli.add_flag("--resume", config.resume,
               "with --out: the games recorded there (same players, openings and seed) count, the rest are played");
  if (sprt) cli.add_option("--sprt", *sprt, "elo0,elo1,alpha,beta: stop when the test decides");
}

void ApplyRules(MatchConfig& config, const std::string& rules) {
  if (rules.empty()) return;
  Rules parsed = Rules::FromString(rules);
  // One key per meaning: the move cap is --max-plies.
  if (rules.find("max_plies") != std::string::npos)
    throw ParseError("--rules '" + Excerpt(rules, 60) + "': the move cap is set with --max-plies, not here");
  parsed.max_plies = config.rules.max_plies;
  config.rules = parsed;
}

int RunMatch(int argc, char** argv) {
  CLI::App cli{
      "Play a match between two players (README: Players). Each opening is played twice,\n"
      "colours swapped; the rules core decides every game. Progress goes to standard error,\n"
      "the result to standard output.",
      argv[0]};
  MatchConfig config;
  std::string summary, sprt, rules;
  cli.add_option("SPEC_A", config.player_a, "first player; results are from its side")->required();
  cli.add_option("SPEC_B", config.player_b, "second player")->required();
  cli.add_option("--games", config.games, "games to play")->check(CLI::Range(1, 10000000))->capture_default_str();
  cli.add_option("--summary", summary, "write the result as JSON to this file");
  std::string clock = "0";
  cli.add_option("--clock", clock,
                 "a game clock, MAIN[+INC]: each side's seconds for the whole game and the seconds added after "
                 "each of its moves (10+0.1), told to it before each move; a side whose time runs out loses "
                 "(0: none, the specs' own limits)")
      ->capture_default_str();
  cli.add_option("--pgn", config.pgn_path,
                 "append each game to this file as cutechess writes its PGN of linesofaction (1-0: White wins)");
  AddMatchOptions(cli, config, rules, &sprt);
  LOAZ_PARSE(cli, argc, argv);

  ApplyRules(config, rules);
  ParseClock(clock, config);
  if (!sprt.empty()) config.sprt = ParseSprt(sprt);
  config.on_progress = [](const MatchProgress& p) { ReportProgress("", p); };
  const MatchResult result = loa::RunMatch(config);
  if (result.resumed)
    std::fprintf(stderr, "%d of the games were read back from %s\n", result.resumed, config.out_dir.c_str());
  std::printf("%s vs %s: %s\n", result.a.c_str(), result.b.c_str(),
              FormatProgress({result.games, result.games, result.wins, result.draws, result.losses, result.elo,
                              result.sprt.has_value(), result.llr})
                  .c_str());
  if (result.sprt) {
    const char* decision[] = {"no decision", "H0 accepted", "H1 accepted"};
    std::printf("SPRT [%g, %g]: %s", result.sprt->elo0, result.sprt->elo1, decision[int(result.decision)]);
    if (result.decision != SprtDecision::kContinue) {
      std::printf(" after %d games (LLR %.2f)", result.decided_after, result.decided_llr);
      if (result.games > result.decided_after)
        std::printf("; the %d in flight then also counted", result.games - result.decided_after);
    }
    std::printf("\n");
  }
  if (!summary.empty()) WriteFileAtomic(summary, result.ToJson().dump(2) + "\n");
  return 0;
}

}  // namespace loa::app
