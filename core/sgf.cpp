// Dave Dyer's SGF for Lines of Action (GM[9], docs/FORMATS.md "SGF"): read
// into a Record, main line only, and written from a Game.

#include <cctype>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/notation.h"
#include "core/record.h"

namespace loa {
namespace {

using Property = std::pair<std::string, std::vector<std::string>>;
using Node = std::vector<Property>;

// Reads the main line of an SGF game tree: the nodes of the first sequence,
// then of each first variation; the other variations are skipped.
class SgfReader {
 public:
  SgfReader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  std::vector<Node> MainLine() {
    Skip();
    Expect('(');
    std::vector<Node> nodes;
    ReadTree(nodes, true);
    return nodes;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw ParseError(source_ + ": SGF at byte " + std::to_string(at_) + ": " + why);
  }
  void Skip() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  void Expect(char ch) {
    if (at_ >= text_.size() || text_[at_] != ch) Fail(std::string("expected '") + ch + "'");
    ++at_;
  }
  // After '(': nodes, then variations, then ')'; `keep`: on the main line.
  void ReadTree(std::vector<Node>& nodes, bool keep) {
    bool first_variation = true;
    for (Skip(); at_ < text_.size(); Skip()) {
      const char ch = text_[at_++];
      if (ch == ')') return;
      if (ch == ';') {
        Node node = ReadNode();
        if (keep) nodes.push_back(std::move(node));
      } else if (ch == '(') {
        ReadTree(nodes, keep && first_variation);
        first_variation = false;
      } else {
        Fail(std::string("unexpected '") + ch + "'");
      }
    }
    Fail("a game tree is never closed with ')'");
  }
  Node ReadNode() {
    Node node;
    for (Skip(); at_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[at_])); Skip()) {
      std::string ident;
      while (at_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[at_])))
        ident += char(std::toupper(text_[at_++]));
      Property p{ident, {}};
      for (Skip(); at_ < text_.size() && text_[at_] == '['; Skip()) p.second.push_back(ReadValue());
      if (p.second.empty()) Fail("property " + ident + " has no [value]");
      node.push_back(std::move(p));
    }
    return node;
  }
  std::string ReadValue() {
    ++at_;  // '['
    std::string value;
    while (at_ < text_.size() && text_[at_] != ']') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
      value += text_[at_++];
    }
    if (at_ >= text_.size()) Fail("a [value] is never closed with ']'");
    ++at_;
    return value;
  }

  std::string_view text_;
  const std::string& source_;
  size_t at_ = 0;
};

std::string Lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// RE[B+], RE[W+Resign], RE[0], RE[Draw] in this format's words.
std::string SgfResult(const std::string& value) {
  const std::string v = Lower(value);
  if (v.rfind("b+", 0) == 0) return "black";
  if (v.rfind("w+", 0) == 0) return "white";
  if (v == "0" || v == "draw") return "draw";
  return "";
}

// The setup of AB/AW/PL over an empty board of `size`.
struct Setup {
  Bitboard pieces[2] = {0, 0};
  bool any = false;
  char to_move = 0;  // 'b', 'w' or 0 (unsaid)
};

void AddSetup(Setup& setup, Color c, const std::vector<std::string>& points, const std::string& source) {
  for (const std::string& point : points) {
    const Square s = ParseSquare(Lower(point));
    if (s == kNoSquare)
      throw ParseError(source + ": SGF A" + (c == kBlack ? "B" : "W") + "[" + Excerpt(point, 20) + "]: not a square");
    setup.pieces[c] |= SquareBB(s);
    setup.any = true;
  }
}

// The setup as a position string of the board of `size`, for FromString to
// check the rest (counts); throws ParseError for a piece off the board.
std::string SetupText(const Setup& setup, int size, char to_move) {
  const Bitboard off = (setup.pieces[kBlack] | setup.pieces[kWhite]) & ~BoardMask(size);
  if (off)
    throw ParseError("SGF setup: a piece on " + SquareName(LowestSquare(off)) + ", off the " + std::to_string(size) +
                     "x" + std::to_string(size) + " board");
  std::string text;
  for (int rank = size - 1; rank >= 0; --rank) {
    for (int file = 0; file < size; ++file) {
      const Bitboard b = SquareBB(MakeSquare(file, rank));
      text += (setup.pieces[kBlack] & setup.pieces[kWhite] & b) ? '?'
              : (setup.pieces[kBlack] & b)                      ? 'b'
              : (setup.pieces[kWhite] & b)                      ? 'w'
                                                                : '1';
    }
    if (rank) text += '/';
  }
  return text + ' ' + (to_move == 'w' ? 'w' : 'b');
}

}  // namespace

Record ParseSgfRecord(std::string_view text, const std::string& source) {
  const std::vector<Node> nodes = SgfReader(text, source).MainLine();
  Record record;
  Setup setup;
  std::string rules_text;
  int size = kBoardSize;
  bool game_checked = false;
  char first_mover = 0;
  for (const Node& node : nodes) {
    for (const auto& [ident, values] : node) {
      const std::string& v = values.front();
      if (ident == "GM") {
        if (v != "9") throw ParseError(source + ": SGF GM[" + Excerpt(v, 20) + "] is not Lines of Action (GM[9])");
        game_checked = true;
      } else if (ident == "SZ") {
        size = std::atoi(v.c_str());
      } else if (ident == "RU") {
        rules_text = v;
      } else if (ident == "PB" || ident == "PW" || ident == "EV" || ident == "DT" || ident == "RO" || ident == "PC") {
        static const std::pair<const char*, const char*> kTags[] = {{"PB", "Black"}, {"PW", "White"}, {"EV", "Event"},
                                                                    {"DT", "Date"},  {"RO", "Round"}, {"PC", "Site"}};
        for (const auto& [sgf, tag] : kTags)
          if (ident == sgf) record.tags.emplace_back(tag, v);
      } else if (ident == "RE") {
        if (!SgfResult(v).empty()) record.tags.emplace_back("Result", SgfResult(v));
        if (Lower(v).rfind("+t") != std::string::npos) record.tags.emplace_back("Termination", "timeout");
      } else if (ident == "AB" || ident == "AW") {
        AddSetup(setup, ident == "AB" ? kBlack : kWhite, values, source);
      } else if (ident == "PL") {
        setup.to_move = char(std::tolower(static_cast<unsigned char>(v[0])));
      } else if (ident == "B" || ident == "W") {
        if (!first_mover) first_mover = char(std::tolower(ident[0]));
        if (Lower(v) == "resign") {
          record.result_token = ident == "B" ? "white" : "black";
        } else if (record.result_token.empty()) {
          record.moves.push_back(v);
        }
      }
    }
  }
  if (!game_checked) throw ParseError(source + ": SGF without GM[9] (the game of Lines of Action)");
  try {
    if (!IsBoardSize(size)) throw ParseError("SGF SZ[" + std::to_string(size) + "]: the board is 6, 7 or 8");
    const bool sized = rules_text.find("size=") != std::string::npos;
    record.rules = Rules::FromString(rules_text + (sized ? "" : " size=" + std::to_string(size)));
    const char to_move = setup.to_move ? setup.to_move : first_mover ? first_mover : 'b';
    record.start = setup.any ? Position::FromString(SetupText(setup, size, to_move)) : record.rules.StartPosition();
  } catch (const ParseError& e) {
    throw ParseError(source + ": " + e.what());
  }
  if (record.rules.ToString() != Rules().ToString()) record.tags.emplace_back("Rules", record.rules.ToString());
  return record;
}

namespace {

std::string SgfEscape(const std::string& value) {
  std::string out;
  for (char ch : value) {
    if (ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

std::string FormatSgf(const Game& game, const Tags& tags) {
  std::ostringstream out;
  const Rules& rules = game.rules();
  out << "(;FF[4]GM[9]SZ[" << rules.size << "]";
  Rules unsized = rules;
  unsized.size = kBoardSize;
  if (!(unsized == Rules())) out << "RU[" << SgfEscape(rules.ToString()) << "]";
  static const std::pair<const char*, const char*> kTags[] = {{"Black", "PB"}, {"White", "PW"}, {"Event", "EV"},
                                                              {"Date", "DT"},  {"Round", "RO"}, {"Site", "PC"}};
  for (const auto& [tag, sgf] : kTags)
    if (!TagValue(tags, tag).empty()) out << sgf << "[" << SgfEscape(TagValue(tags, tag)) << "]";
  if (game.over()) {
    const char* on_time = game.reason() == Reason::kTimeout ? "T" : "";
    out << "RE["
        << (game.result() == Result::kBlackWins   ? std::string("B+") + on_time
            : game.result() == Result::kWhiteWins ? std::string("W+") + on_time
                                                  : std::string("0"))
        << "]";
  }
  const Position& start = game.start();
  if (start != rules.StartPosition()) {
    for (Color c : {kBlack, kWhite}) {
      out << (c == kBlack ? "AB" : "AW");
      for (Bitboard b = start.pieces(c); b;) out << "[" << SquareName(PopLowest(b)) << "]";
    }
    out << "PL[" << (start.side_to_move() == kBlack ? "B" : "W") << "]";
  }
  Color side = start.side_to_move();
  for (Move m : game.moves()) {
    std::string text = FormatMove(m);
    if (m.is_capture()) text[2] = ':';
    out << "\n;" << (side == kBlack ? "B" : "W") << "[" << text << "]";
    side = Opponent(side);
  }
  out << ")\n";
  return out.str();
}

}  // namespace loa
