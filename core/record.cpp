#include "core/record.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.h"
#include "core/formats.h"
#include "core/notation.h"

namespace loa {
namespace {

bool IsResultToken(const std::string& t) {
  return t == "*" || t == "black" || t == "white" || t == "draw" || t == "1-0" || t == "0-1" || t == "1/2-1/2";
}

// Returns whether t is a move number such as "12." or "12...".
bool IsMoveNumber(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  return i > 0 && i < t.size() && t.find_first_not_of('.', i) == std::string::npos;
}

// Whether a record is cutechess's PGN of its variant linesofaction: its FEN
// is cutechess's (core/formats.h) and its results name colours in the
// chess manner, "1-0" a White win (docs/FORMATS.md).
bool IsCutechessRecord(const Tags& tags) {
  for (const auto& [key, value] : tags)
    if (key == "Variant") return value == "linesofaction";
  return false;
}

// A result of cutechess's PGN in this format's words ("1-0" is White's).
std::string FromChessColours(const std::string& token) {
  if (token == "1-0") return "white";
  if (token == "0-1") return "black";
  if (token == "1/2-1/2") return "draw";
  return token;
}

// Parses `[Name "value"]`; throws naming the line.
std::pair<std::string, std::string> ParseTag(const std::string& line, const std::string& where) {
  const size_t space = line.find(' '), open = line.find('"'), close = line.rfind('"');
  if (line.back() != ']' || space == std::string::npos || open == std::string::npos || close <= open)
    throw ParseError(where + ": malformed tag pair '" + Excerpt(line) + "' (expected [Name \"value\"])");
  return {line.substr(1, space - 1), line.substr(open + 1, close - open - 1)};
}

}  // namespace

std::string TagValue(const Tags& tags, std::string_view name) {
  for (const auto& [key, value] : tags)
    if (key == name) return value;
  return "";
}

Tags DescriptiveTags(const Tags& tags) {
  static const std::string kDerived[] = {"Result", "Termination", "FEN", "Rules", "SetUp", "Variant", "PlyCount"};
  Tags kept;
  for (const auto& tag : tags)
    if (std::find(std::begin(kDerived), std::end(kDerived), tag.first) == std::end(kDerived)) kept.push_back(tag);
  return kept;
}

Record ParseRecord(std::string_view text, const std::string& source) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '(') return ParseSgfRecord(text, source);
  Record record;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_number = 0;
  std::string movetext;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    line = line.substr(first);
    if (line[0] == '[') {
      record.tags.push_back(ParseTag(line, source + ":" + std::to_string(line_number)));
      continue;
    }
    if (line[0] == ';' || line[0] == '#') continue;  // comment line
    movetext += line + '\n';
  }
  // Nothing at all is no game (an emptied file), not one of no moves.
  if (record.tags.empty() && movetext.empty()) throw ParseError(source + ": empty record (no tags, no moves)");
  const std::string rules = TagValue(record.tags, "Rules");
  try {
    // cutechess's PGN is under cutechess's rules unless it names others.
    record.rules = Rules::FromString(rules.empty() && IsCutechessRecord(record.tags) ? "cutechess" : rules);
    const std::string fen = TagValue(record.tags, "FEN");
    record.start = fen.empty() ? record.rules.StartPosition() : ReadPosition(fen);
  } catch (const ParseError& e) {
    throw ParseError(source + ": " + e.what());
  }
  // Drop {comments}, then split into tokens.
  std::string cleaned;
  int depth = 0;
  for (char ch : movetext) {
    if (ch == '{')
      ++depth;
    else if (ch == '}' && depth == 0)
      throw ParseError(source + ": '}' closes no comment");
    else if (ch == '}')
      --depth;
    else if (depth == 0)
      cleaned += ch;
  }
  if (depth > 0) throw ParseError(source + ": a '{' comment is never closed");
  std::istringstream tokens(cleaned);
  std::string token;
  while (tokens >> token) {
    // "12.c8-c6" is allowed: split a glued move number.
    const size_t dot = token.find_last_of('.');
    if (dot != std::string::npos && dot + 1 < token.size() && IsMoveNumber(token.substr(0, dot + 1)))
      token = token.substr(dot + 1);
    if (IsMoveNumber(token)) continue;
    if (IsResultToken(token)) {
      record.result_token = IsCutechessRecord(record.tags) ? FromChessColours(token) : token;
      continue;
    }
    if (!record.result_token.empty())
      throw ParseError(source + ": move '" + Excerpt(token, 20) + "' after the result '" + record.result_token + "'");
    record.moves.push_back(token);
  }
  return record;
}

Game ReplayRecord(const Record& record, const Rules& rules, const std::string& source) {
  Game game(rules, record.start);
  for (const std::string& text : record.moves) {
    const int ply = game.ply() + 1;
    const std::string where = source + ": ply " + std::to_string(ply) + ": ";
    if (game.over())
      throw ParseError(where + "move '" + Excerpt(text, 20) + "' after the game ended (" + ResultName(game.result()) +
                       ", " + ReasonName(game.reason()) + ") in position '" + game.position().ToString() + "'");
    try {
      game.Play(ParseMove(text, game.position(), CaptureMark::kCheck));
    } catch (const ParseError& e) {
      throw ParseError(where + e.what());
    }
  }
  // A loss on time is not in the moves: the record's tags say it (cutechess:
  // "time forfeit", its result in chess colours).
  const bool cutechess = IsCutechessRecord(record.tags);
  const std::string winner =
      cutechess ? FromChessColours(TagValue(record.tags, "Result")) : TagValue(record.tags, "Result");
  const std::string termination = TagValue(record.tags, "Termination");
  if (!game.over() && (termination == ReasonName(Reason::kTimeout) || (cutechess && termination == "time forfeit")) &&
      (winner == "black" || winner == "white"))
    game.Forfeit(winner == "black" ? kWhite : kBlack);
  return game;
}

std::string FormatCutechessPgn(const Game& game, const Tags& tags) {
  const Result r = game.result();
  const std::string result = !game.over()              ? "*"
                             : r == Result::kWhiteWins ? "1-0"
                             : r == Result::kBlackWins ? "0-1"
                                                       : "1/2-1/2";
  std::ostringstream out;
  for (const auto& [key, value] : tags) out << '[' << key << " \"" << value << "\"]\n";
  out << "[Result \"" << result << "\"]\n";
  if (game.reason() == Reason::kTimeout) out << "[Termination \"time forfeit\"]\n";
  out << "[FEN \"" << FormatPosition(game.start(), PositionFormat::kCutechess)
      << "\"]\n[SetUp \"1\"]\n[Variant \"linesofaction\"]\n";
  if (!(game.rules() == Rules::FromString("cutechess"))) out << "[Rules \"" << game.rules().ToString() << "\"]\n";
  out << "[PlyCount \"" << game.ply() << "\"]\n\n";
  // Chess numbering: a number grows after Black's move; Black moves first.
  Color side = game.start().side_to_move();
  int number = 1, on_line = 0;
  for (size_t i = 0; i < game.moves().size(); ++i) {
    const Move m = game.moves()[i];
    if (on_line >= 8) {
      out << '\n';
      on_line = 0;
    } else if (on_line > 0) {
      out << ' ';
    }
    if (side == kWhite) out << number << ". ";
    if (side == kBlack && on_line == 0) out << number << "... ";
    out << FormatMove(m);
    if (side == kBlack) ++number;
    side = Opponent(side);
    ++on_line;
  }
  out << (on_line > 0 ? " " : "") << result << "\n";
  return out.str();
}

std::string FormatRecord(const Game& game, const Tags& tags) {
  std::ostringstream out;
  for (const auto& [key, value] : tags) out << '[' << key << " \"" << value << "\"]\n";
  out << "[Result \"" << (game.over() ? ResultName(game.result()) : "*") << "\"]\n";
  if (game.over()) out << "[Termination \"" << ReasonName(game.reason()) << "\"]\n";
  if (game.start() != game.rules().StartPosition()) out << "[FEN \"" << game.start().ToString() << "\"]\n";
  if (!(game.rules() == Rules())) out << "[Rules \"" << game.rules().ToString() << "\"]\n";
  out << '\n';
  // Numbered as in chess: a number before each Black move ("N...") when White
  // opens the move text.
  Color side = game.start().side_to_move();
  int number = 1;
  bool line_open = false;
  for (Move m : game.moves()) {
    if (side == kBlack) {
      if (line_open) out << '\n';
      out << number << ". " << FormatMove(m);
      line_open = true;
    } else {
      if (!line_open)
        out << number << "... ";
      else
        out << ' ';
      out << FormatMove(m);
      line_open = true;
      ++number;
    }
    side = Opponent(side);
  }
  if (line_open) out << '\n';
  out << (game.over() ? ResultName(game.result()) : "*") << '\n';
  return out.str();
}

}  // namespace loa
