#include "play/tournament.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.h"

namespace loa {

TournamentResult RunTournament(const TournamentConfig& config) {
  const int n = int(config.players.size());
  if (n < 2) throw Error("tournament: at least two players are needed");
  if (!config.makers.empty() && int(config.makers.size()) != n) throw Error("tournament: one maker per player");
  TournamentResult result;
  result.players = config.players;
  if (!config.anchor.empty()) {
    const auto it = std::find(config.players.begin(), config.players.end(), config.anchor);
    if (it == config.players.end()) throw Error("tournament: anchor '" + config.anchor + "' is not among the players");
    result.anchor = int(it - config.players.begin());
  }
  std::vector<PairResults> pairs;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      MatchConfig match = config.match;
      match.player_a = config.players[i];
      match.player_b = config.players[j];
      if (!config.makers.empty()) {
        match.make_a = config.makers[i];
        match.make_b = config.makers[j];
      }
      match.games = config.games_per_pair;
      if (!config.match.out_dir.empty())
        match.out_dir = (std::filesystem::path(config.match.out_dir) /
                         ("p" + std::to_string(i + 1) + "_vs_p" + std::to_string(j + 1)))
                            .string();
      if (config.on_progress) match.on_progress = [&, i, j](const MatchProgress& p) { config.on_progress(i, j, p); };
      result.matches.push_back(RunMatch(match));
      const MatchResult& m = result.matches.back();
      pairs.push_back({i, j, m.wins, m.draws, m.losses});
    }
  }
  result.ratings = BradleyTerry(config.players, pairs, result.anchor, config.anchor_elo);
  return result;
}

std::string TournamentResult::Table() const {
  std::vector<int> order(ratings.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return ratings[x].elo > ratings[y].elo; });
  size_t width = 6;
  for (const Rating& r : ratings) width = std::max(width, r.name.size());
  char line[512];
  std::snprintf(line, sizeof(line), "%4s  %-*s  %7s  %6s  %6s  %6s\n", "rank", int(width), "player", "elo", "+-95%",
                "games", "score");
  std::string text = line;
  for (size_t k = 0; k < order.size(); ++k) {
    const Rating& r = ratings[order[k]];
    std::snprintf(line, sizeof(line), "%4zu  %-*s  %7.1f  %6.1f  %6d  %5.1f%%%s\n", k + 1, int(width), r.name.c_str(),
                  r.elo, r.ci95, r.games, 100 * r.score, order[k] == anchor ? "  (anchor)" : "");
    text += line;
  }
  return text;
}

nlohmann::ordered_json TournamentResult::ToJson() const {
  nlohmann::ordered_json table = nlohmann::ordered_json::array(), games = nlohmann::ordered_json::array();
  for (const Rating& r : ratings)
    table.push_back({{"player", r.name}, {"elo", r.elo}, {"elo_ci95", r.ci95}, {"games", r.games}, {"score", r.score}});
  for (const MatchResult& m : matches) games.push_back(m.ToJson());
  return {{"players", players}, {"anchor", players[anchor]}, {"ratings", table}, {"matches", games}};
}

}  // namespace loa
