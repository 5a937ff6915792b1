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
// What a side with no legal move does (docs/RULES.md rule 6 and "Other
// programs' rules"): passes (the Olympiad's), loses (OpenSpiel, cutechess)
// or the game is drawn (PlayStrategy).
enum class NoMoves { kPass, kLoss, kDraw };
// What a repetition compares: the pieces and the side to move (the
// Olympiad's), or the pieces alone (OpenSpiel).
enum class RepetitionOf { kPosition, kBoard };

// The rule options. The defaults are the Computer Olympiad's.
// The move cap of games that need one (self-play, matches, the baseline's
// tuning games, random playouts): 300 plies, some three times a long LOA
// game, so that it ends only games that would not end.
inline constexpr int kDefaultMaxPlies = 300;

// "draw" or "mover", "standard" or "scrambled", "pass", "loss" or "draw",
// "position" or "board": the names of the rule options' values in specs,
// configs, records and the protocol.
const char* SimultaneousName(Simultaneous s);
const char* StartName(StartKind s);
const char* NoMovesName(NoMoves n);
const char* RepetitionOfName(RepetitionOf r);

struct Rules {
  Simultaneous simultaneous = Simultaneous::kDraw;
  StartKind start = StartKind::kStandard;
  // The board's size: 8 (the Olympiad's), 7 or 6 (docs/RULES.md, "Board sizes").
  int size = kBoardSize;
  // A game reaching this many plies is a draw marked "cap"; 0 means no cap.
  int max_plies = 0;
  // The other programs' rules (docs/RULES.md, "Other programs' rules"); the
  // defaults are the Olympiad's.
  NoMoves no_moves = NoMoves::kPass;
  int repetition = 3;  // the occurrence of a repeated position that draws
  RepetitionOf repetition_of = RepetitionOf::kPosition;
  int no_capture_plies = 0;  // a draw after this many plies without a capture; 0: never

  // Returns the start position of these rules (start and size).
  Position StartPosition() const { return Position::Start(start, size); }
  // Declares the options (core/param_visitor.h): simultaneous, start, size,
  // max_plies, no_moves, repetition, repetition_of, no_capture_plies.
  void Visit(ParamVisitor& v);
  // Returns the options as "simultaneous=draw start=standard size=8
  // max_plies=0", then those of the others that differ from the Olympiad's
  // ("... no_moves=loss repetition=2"), so that its records read as before.
  std::string ToString() const;
  // Parses space- or comma-separated key=value pairs over the defaults, after
  // any names of rule sets ("openspiel", "cutechess", "playstrategy",
  // "olympiad": RuleSet); throws ParseError naming the pair it cannot read.
  static Rules FromString(std::string_view text);
  bool operator==(const Rules& o) const {
    return simultaneous == o.simultaneous && start == o.start && size == o.size && max_plies == o.max_plies &&
           no_moves == o.no_moves && repetition == o.repetition && repetition_of == o.repetition_of &&
           no_capture_plies == o.no_capture_plies;
  }
};

// The options of a named rule set over the defaults: "olympiad" (none),
// "openspiel" (simultaneous=mover no_moves=loss repetition=2
// repetition_of=board max_plies=1000), "cutechess" (no_moves=loss),
// "playstrategy" (no_moves=draw repetition=5 no_capture_plies=100); throws
// ParseError naming an unknown one.
std::string RuleSet(std::string_view name);

enum class Result { kOngoing, kBlackWins, kWhiteWins, kDraw };
enum class Reason { kNone, kUnited, kBothUnited, kRepetition, kCap, kTimeout, kNoMoves, kNoCapture };

// "black", "white", "draw", "ongoing".
const char* ResultName(Result r);
// "united", "both-united", "repetition", "cap", "timeout", "no-moves",
// "no-capture", "-".
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

  // Returns how many times pos has occurred in this game so far (its board
  // with either side to move, under repetition_of=board).
  int Occurrences(const Position& pos) const;

  // Appends the legal moves: none once the game is over, the pass alone
  // when the side to move has no other move (no_moves=pass; under the other
  // options such a game is over).
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
  // The verdict of the no_moves option on pos (ongoing under kPass).
  Verdict NoMovesVerdict(const Position& pos) const;

  Rules rules_;
  std::vector<Position> positions_;
  std::vector<Move> moves_;
  std::vector<Verdict> verdicts_;
  std::vector<int> quiet_;  // plies without a capture, at each position
  Verdict forfeit_;         // set by Forfeit
  std::unordered_map<uint64_t, int> occurrences_;
};

}  // namespace loa
