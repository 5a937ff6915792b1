#pragma once
// Game records: PGN-style tag pairs, then numbered move text. The format is
// described in docs/FORMATS.md ("Game records").

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/game.h"

namespace loa {

using Tags = std::vector<std::pair<std::string, std::string>>;

// A record as read, before its moves are checked against the rules.
struct Record {
  Tags tags;                       // every tag pair, in file order
  Position start;                  // the [FEN] tag, else the rules' start
  Rules rules;                     // the [Rules] tag over the defaults
  std::vector<std::string> moves;  // move tokens in order, unchecked
  std::string result_token;        // the closing result token, if any
};

// Returns the value of tag `name`, or an empty string.
std::string TagValue(const Tags& tags, std::string_view name);

// Returns the tags that describe a game (players, event, date, ...), without
// those a writer derives from the game itself (Result, Termination, FEN,
// Rules, SetUp, Variant, PlyCount): what a record keeps when it is written
// again in another format.
Tags DescriptiveTags(const Tags& tags);

// Parses record text, LOAZero's or cutechess's PGN or SGF (GM[9], read by
// ParseSgfRecord when the text opens with '('); `source` names the file in errors. Throws ParseError on
// a malformed tag, FEN or Rules value, and on text with neither a tag nor a
// move (an emptied file).
Record ParseRecord(std::string_view text, const std::string& source);

// Replays the moves of a record under `rules` from its start; throws
// ParseError naming the source, the ply, the move and the position at the
// first malformed or illegal move, or at a move after the game ended.
Game ReplayRecord(const Record& record, const Rules& rules, const std::string& source);

// Returns the record text of a game: the given tags, then Result,
// Termination, FEN (for a non-standard start) and Rules, then the moves.
std::string FormatRecord(const Game& game, const Tags& tags = {});

// Parses Dave Dyer's SGF of Lines of Action (docs/FORMATS.md, "Game records"): GM[9],
// SZ, RU (LOAZero's rules text), PB PW EV DT RO PC as tags, RE, the setup
// AB AW PL, the moves B[e1-e3] W[c2:c5] (marks such as "+" dropped) and
// B[resign]; the main line only. Throws ParseError naming the source.
Record ParseSgfRecord(std::string_view text, const std::string& source);

// Returns a game as SGF GM[9]: FF[4], SZ, RU where the rules are not the
// Olympiad's, the tags' players and event, RE, the setup of a non-standard
// start, then one node a move (a capture written with ':').
std::string FormatSgf(const Game& game, const Tags& tags = {});

// Returns a game as cutechess writes its PGN of linesofaction (docs/FORMATS.md):
// the given tags, Result in chess colours ("1-0" a White win), Termination
// "time forfeit" for a loss on time, FEN (cutechess's), SetUp, Variant,
// Rules where they are not cutechess's, PlyCount, then the moves numbered as chess numbers them with Black first
// ("1... d1-b3 2. a2-c2 b1-b4"), and the result. ParseRecord reads it back.
std::string FormatCutechessPgn(const Game& game, const Tags& tags = {});

}  // namespace loa
