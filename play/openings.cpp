#include "play/openings.h"

#include <sstream>

#include "core/error.h"
#include "core/file_util.h"
#include "core/formats.h"
#include "core/random.h"
#include "play/spec.h"

namespace loa {
namespace {

// A random opening that ends the game is drawn again, at most this often.
constexpr int kOpeningAttempts = 1000;
constexpr int kMaxOpeningPlies = 200;

}  // namespace

Openings::Openings(const std::string& source, const Rules& rules) : source_(source), rules_(rules) {
  if (source == "none") {
    positions_.push_back(rules.StartPosition());
    lines_.push_back(0);
    return;
  }
  if (source.rfind("random", 0) == 0 && (source.size() == 6 || source[6] == ':')) {
    const PlayerSpec spec = PlayerSpec::Parse(source);
    spec.CheckKeys({"plies"});
    random_plies_ = int(spec.GetInt("plies", 4, 0, kMaxOpeningPlies));
    return;
  }
  std::istringstream in(ReadFile(source, kMaxTextBytes));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    try {
      const Position pos = ReadPosition(line.substr(first));
      if (Game(rules, pos).over()) throw ParseError("the game is already over there");
      positions_.push_back(pos);
      lines_.push_back(number);
    } catch (const ParseError& e) {
      throw ParseError("openings " + source + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  if (positions_.empty()) throw ParseError("openings " + source + ": no position in the file");
}

Game Openings::Get(int i, uint64_t seed) const {
  if (random_plies_ < 0) return Game(rules_, positions_[size_t(i) % positions_.size()]);
  Rng rng(MixSeed(seed, uint64_t(i)));
  for (int attempt = 0; attempt < kOpeningAttempts; ++attempt) {
    Game game(rules_);
    while (!game.over() && game.ply() < random_plies_) {
      MoveList moves;
      game.LegalMoves(moves);
      game.Play(moves[rng.Below(int(moves.size()))]);
    }
    if (!game.over()) return game;
  }
  throw Error("openings " + source_ + ": every random opening ended the game");
}

std::string Openings::Describe(int i) const {
  if (random_plies_ >= 0) return source_ + " #" + std::to_string(i + 1);
  if (source_ == "none") return "none";
  return source_ + ":" + std::to_string(lines_[size_t(i) % lines_.size()]);
}

}  // namespace loa
