#pragma once
// A game: rule options, the history of positions and moves with undo,
// repetition counts, and the result with its reason.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/move.h"
#include "core/position.h"

namespace loa {

class ParamVisitor;

// What happens when one move unites both sides (docs/RULES.md rule 8).
enum class Simultaneous { kDraw, kMover };

// The rule options. The defaults are the Computer Olympiad's.
// The move cap of games that need one (self-play, matches, the baseline's
// tuning games, random playouts): 300 plies, some three times a long LOA
// game, so that it ends only games that would not end.
inline constexpr int kDefaultMaxPlies = 300;

// "draw" or "mover", "standard" or "scrambled": the names of the rule
// options' values in specs, configs, records and the protocol.
const char* SimultaneousName(Simultaneous s);
const char* StartName(StartKind s);

struct Rules {
  Simultaneous simultaneous = Simultaneous::kDraw;
  StartKind start = StartKind::kStandard;
  // The board's size: 8 (the Olympiad's), 7 or 6 (docs/RULES.md, "Board sizes").
  int size = kBoardSize;
  // A game reaching this many plies is a draw marked "cap"; 0 means no cap.
  int max_plies = 0;

  // Returns the start position of these rules (start and size).
  Position StartPosition() const { return Position::Start(start, size); }
  // Declares the options (core/param_visitor.h): simultaneous, start, size, max_plies.
  void Visit(ParamVisitor& v);
  // Returns the options as "simultaneous=draw start=standard size=8 max_plies=0".
  std::string ToString() const;
  // Parses space- or comma-separated key=value pairs over the defaults;
  // throws ParseError naming the pair it cannot read.
  static Rules FromString(std::string_view text);
  bool operator==(const Rules& o) const {
    return simultaneous == o.simultaneous && start == o.start && size == o.size && max_plies == o.max_plies;
  }
};

enum class Result { kOngoing, kBlackWins, kWhiteWins, kDraw };
enum class Reason { kNone, kUnited, kBothUnited, kRepetition, kCap, kTimeout };

// "black", "white", "draw", "ongoing".
const char* ResultName(Result r);
// "united", "both-united", "repetition", "cap", "timeout", "-".
const char* ReasonName(Reason r);
// Returns the win of colour c.
constexpr Result WinFor(Color c) { return c == kBlack ? Result::kBlackWins : Result::kWhiteWins; }

struct Verdict {
  Result result = Result::kOngoing;
  Reason reason = Reason::kNone;
  bool over() const { return result != Result::kOngoing; }
};

// Returns the verdict of the united rule on pos, reached by a move of
// `mover`: a win for the one united side, both-united per the option, else
// ongoing. Repetition and the cap are the Game's business.
Verdict UnitedVerdict(const Position& pos, Color mover, Simultaneous simultaneous);

// A game from a start position. Not thread-safe; copy it to share.
class Game {
 public:
  explicit Game(const Rules& rules = Rules());
  // A game from any position of the rules' board size (else ParseError naming
  // both); if a side is already united there, the game is over as if the
  // side not to move had just moved.
  Game(const Rules& rules, const Position& start);

  const Rules& rules() const { return rules_; }
  const Position& position() const { return positions_.back(); }
  const Position& start() const { return positions_.front(); }
  const std::vector<Move>& moves() const { return moves_; }
  int ply() const { return int(moves_.size()); }
  const Verdict& verdict() const { return forfeit_.over() ? forfeit_ : verdicts_.back(); }
  Result result() const { return verdict().result; }
  Reason reason() const { return verdict().reason; }
  bool over() const { return verdict().over(); }

  // Returns how many times pos has occurred in this game so far.
  int Occurrences(const Position& pos) const;

  // Appends the legal moves: none once the game is over, the pass alone
  // when the side to move has no other move.
  void LegalMoves(MoveList& moves) const;

  // Plays m; the game must not be over and m must be legal.
  void Play(Move m);

  // Ends the game with a loss for `loser`, who failed to move in time
  // (reason "timeout"); the game must not be over.
  void Forfeit(Color loser);

  // Takes back a forfeit, else the last move; returns false at the start.
  bool Undo();

 private:
  Verdict Judge(const Position& pos, Color mover) const;

  Rules rules_;
  std::vector<Position> positions_;
  std::vector<Move> moves_;
  std::vector<Verdict> verdicts_;
  Verdict forfeit_;  // set by Forfeit
  std::unordered_map<uint64_t, int> occurrences_;
};

}  // namespace loa
