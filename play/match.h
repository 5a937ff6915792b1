#pragma once
// Matches between two players: openings played twice with colours swapped,
// games in parallel, every result decided by the rules core, records
// written, Elo with its interval, and an optional SPRT that stops the match.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/game.h"
#include "play/player.h"
#include "play/ratings.h"

namespace loa {

// The move cap of match games unless the config says otherwise: far beyond
// a normal game (expert games end within 50 plies), so that it only stops
// games that would never end.
inline constexpr int kMatchMaxPlies = kDefaultMaxPlies;

// Makes a fresh player; called once per worker thread.
using PlayerFactory = std::function<std::unique_ptr<Player>()>;

// The state of a match after a game, for progress reports.
struct MatchProgress {
  int games_done = 0, games_total = 0;
  int wins = 0, draws = 0, losses = 0;  // from A's side
  EloEstimate elo;
  bool sprt = false;
  double llr = 0;  // with an SPRT
};

// What a match is to play.
struct MatchConfig {
  std::string player_a, player_b;  // specs (MakePlayer), also the names in records
  PlayerFactory make_a, make_b;    // used instead of the specs when set
  int games = 2;
  std::string openings = "random:plies=4";  // see Openings
  int threads = 1;
  uint64_t seed = 1;  // openings and player seeds come from it and the game number
  Rules rules = [] {
    Rules r;
    r.max_plies = kMatchMaxPlies;
    return r;
  }();
  std::string out_dir;  // a record per game when set
  // Each game appended, as it ends, to this file as cutechess writes its
  // PGN (FormatCutechessPgn) when set, as cutechess's -pgnout does.
  std::string pgn_path;
  // With out_dir: a game whose record is already there (from these players,
  // this opening and seed, under these rules) counts as played, and only the
  // others are played, so that a match cut short goes on where it stopped.
  bool resume = false;
  std::optional<SprtConfig> sprt;
  // A player that times out (an external engine) loses the game when set;
  // else the match fails with the PlayerTimeout.
  bool forfeit_on_timeout = true;
  // A game clock: each side's time for the whole game, in seconds (0: none,
  // the players' own limits hold). A player is told its time left before
  // each move (Clock::main_seconds) and loses the game when it runs out;
  // the records carry it as [TimeControl].
  double clock_seconds = 0;
  // Seconds added to a side's clock after each of its moves (Fischer's
  // increment; [TimeControl] "MAIN+INC"), with clock_seconds.
  double clock_increment = 0;
  // Called after each game, under the match's lock (keep it short).
  std::function<void(const MatchProgress&)> on_progress;
};

// One game of a match.
struct MatchGame {
  int index = 0;  // 0-based game number
  bool a_is_black = true;
  Result result = Result::kOngoing;
  Reason reason = Reason::kNone;
  int plies = 0;
  double a_score = 0;  // 1, 0.5 or 0
};

// The outcome of a match, from A's side.
struct MatchResult {
  std::string a, b;
  int games = 0, wins = 0, draws = 0, losses = 0;
  EloEstimate elo;
  std::optional<SprtConfig> sprt;
  double llr = 0;
  SprtDecision decision = SprtDecision::kContinue;
  // The games counted when the SPRT decided, and its llr then. Games in
  // flight at that moment still finish and count, so the final llr may have
  // moved back inside the bounds.
  int decided_after = 0;
  double decided_llr = 0;
  std::vector<MatchGame> game_list;  // finished games in game-number order
  int resumed = 0;                   // of them, read back from out_dir (resume)

  // Returns {a, b, games, wins, draws, losses, score, elo, elo_ci95} and,
  // with an SPRT, its parameters, llr and decision (with decided_after and
  // decided_llr once it decided).
  nlohmann::ordered_json ToJson() const;
};

// Plays the match; with one thread and a fixed seed it plays the same games
// every time (and with more threads too, unless the SPRT stops it). Throws
// Error when a player fails (an external engine dies, plays an illegal move,
// or times out without forfeit_on_timeout) or a record cannot be written,
// and ParseError when resume finds a record of another match, naming it.
MatchResult RunMatch(const MatchConfig& config);

// Returns one line of progress: "games 12/40  +8 =2 -2  score 75.0%  Elo +191 +- 120".
std::string FormatProgress(const MatchProgress& progress);

}  // namespace loa
