#include "net/encoder.h"

#include <algorithm>
#include <cmath>

#include "core/bitboard.h"
#include "core/error.h"

namespace loa {
namespace {

// Lines per orientation, indexed as LineIndex numbers them.
constexpr int kMaxLines = 15;

// For each orientation and square, the index of the square's line: file f,
// diagonal f - r + 7, rank r, anti-diagonal f + r.
struct LineTables {
  int8_t index[kNumOrientations][kNumSquares] = {};
  Bitboard mask[kNumOrientations][kMaxLines] = {};
  int count[kNumOrientations] = {8, 15, 8, 15};

  LineTables() {
    for (Square s = 0; s < kNumSquares; ++s) {
      int f = FileOf(s), r = RankOf(s);
      int idx[kNumOrientations] = {f, f - r + 7, r, f + r};
      for (int o = 0; o < kNumOrientations; ++o) {
        index[o][s] = int8_t(idx[o]);
        mask[o][idx[o]] = LineThrough(Orientation(o), s);
      }
    }
  }
};

const LineTables& Lines() {
  static const LineTables tables;
  return tables;
}

// Writes 1.0f on the squares of b and 0.0f elsewhere.
inline void WriteBitPlane(Bitboard b, float* out) {
  for (int s = 0; s < kNumSquares; ++s) out[s] = float((b >> s) & 1);
}

// Writes the connection set's planes (after the basic ones) of pos.
void EncodeConnection(const Position& pos, float* out) {
  const Color us = pos.side_to_move();
  for (int side = 0; side < 2; ++side) {
    const Bitboard pieces = pos.pieces(side == 0 ? us : Opponent(us));
    float* size_plane = out + (side == 0 ? kOwnGroupSizePlane : kEnemyGroupSizePlane) * kNumSquares;
    float* spread_plane = out + (side == 0 ? kOwnSpreadPlane : kEnemySpreadPlane) * kNumSquares;
    std::fill(size_plane, size_plane + kNumSquares, 0.0f);
    std::fill(spread_plane, spread_plane + kNumSquares, 0.0f);
    int groups = 0, count = 0, file_sum = 0, rank_sum = 0;
    for (Bitboard left = pieces; left;) {
      const Bitboard group = GroupOf(left & (0 - left), pieces);
      left &= ~group;
      ++groups;
      const float size = float(PopCount(group)) / 12.0f;
      for (Bitboard b = group; b; b &= b - 1) size_plane[LowestSquare(b)] = size;
    }
    for (Bitboard b = pieces; b; b &= b - 1) {
      const Square s = LowestSquare(b);
      file_sum += FileOf(s), rank_sum += RankOf(s), ++count;
    }
    if (count > 0) {
      // The distance to the centre of mass (file_sum / count, rank_sum /
      // count) times count, in integers: exactly the same under every
      // symmetry of the board, as a rounded or float centre would not be.
      for (Bitboard b = pieces; b; b &= b - 1) {
        const Square s = LowestSquare(b);
        const int df = std::abs(FileOf(s) * count - file_sum), dr = std::abs(RankOf(s) * count - rank_sum);
        spread_plane[s] = float(std::max(df, dr)) / float(7 * count);
      }
    }
    float* groups_plane = out + (side == 0 ? kOwnGroupsPlane : kEnemyGroupsPlane) * kNumSquares;
    std::fill(groups_plane, groups_plane + kNumSquares, float(std::max(groups - 1, 0)) / 11.0f);
  }
  float* targets = out + kTargetPlane * kNumSquares;
  std::fill(targets, targets + kNumSquares, 0.0f);
  MoveList moves;
  pos.GenerateMoves(moves);
  for (Move m : moves)
    if (!m.is_pass()) targets[m.to()] = std::min(1.0f, targets[m.to()] + 0.25f);
}

// Writes one side's threat planes: the wins in one move of `mover` against
// `other` (origins, landings) and each piece's fewest groups after a move.
void EncodeSideThreats(Bitboard mover, Bitboard other, Bitboard board, float* win_from, float* win_to,
                       float* move_groups) {
  std::fill(win_from, win_from + kNumSquares, 0.0f);
  std::fill(win_to, win_to + kNumSquares, 0.0f);
  std::fill(move_groups, move_groups + kNumSquares, 0.0f);
  int fewest[kNumSquares];
  const int now = CountGroups(mover);
  for (Bitboard b = mover; b; b &= b - 1) fewest[LowestSquare(b)] = now;
  ForEachMove(mover, other, board, [&](Square from, Square to, Direction, bool) {
    const int groups = CountGroups((mover & ~SquareBB(from)) | SquareBB(to));
    fewest[from] = std::min(fewest[from], groups);
    if (groups == 1) win_from[from] = win_to[to] = 1.0f;
  });
  for (Bitboard b = mover; b; b &= b - 1) move_groups[LowestSquare(b)] = float(fewest[LowestSquare(b)]) / 12.0f;
}

// Writes the threat set's planes (after the connection ones) of pos.
void EncodeThreats(const Position& pos, float* out) {
  const Bitboard own = pos.pieces(pos.side_to_move()), enemy = pos.pieces(Opponent(pos.side_to_move()));
  auto plane = [out](int p) { return out + p * kNumSquares; };
  EncodeSideThreats(own, enemy, pos.board(), plane(kOwnWinFromPlane), plane(kOwnWinToPlane),
                    plane(kOwnMoveGroupsPlane));
  EncodeSideThreats(enemy, own, pos.board(), plane(kEnemyWinFromPlane), plane(kEnemyWinToPlane),
                    plane(kEnemyMoveGroupsPlane));
}

}  // namespace

const std::vector<std::string>& InputFeaturesNames() {
  static const std::vector<std::string> names = {"basic", "connection", "threat"};
  return names;
}

const char* InputFeaturesName(InputFeatures f) { return InputFeaturesNames()[std::size_t(f)].c_str(); }

InputFeatures InputFeaturesOf(const std::string& name) {
  const std::vector<std::string>& names = InputFeaturesNames();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return InputFeatures(i);
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  throw Error("input features '" + name + "': one of " + known);
}

void EncodePosition(const Position& pos, float* out, InputFeatures f) {
  const LineTables& lines = Lines();
  Color us = pos.side_to_move();
  Bitboard occupied = pos.occupied();
  WriteBitPlane(pos.pieces(us), out + kOwnPlane * kNumSquares);
  WriteBitPlane(pos.pieces(Opponent(us)), out + kEnemyPlane * kNumSquares);
  for (int o = 0; o < kNumOrientations; ++o) {
    float scaled[kMaxLines];
    for (int l = 0; l < lines.count[o]; ++l) scaled[l] = float(PopCount(occupied & lines.mask[o][l])) * 0.125f;
    float* plane = out + (kLineCountPlane + o) * kNumSquares;
    const int8_t* index = lines.index[o];
    for (int s = 0; s < kNumSquares; ++s) plane[s] = scaled[index[s]];
  }
  std::fill(out + kOnesPlane * kNumSquares, out + (kOnesPlane + 1) * kNumSquares, 1.0f);
  if (f != InputFeatures::kBasic) EncodeConnection(pos, out);
  if (f == InputFeatures::kThreat) EncodeThreats(pos, out);
  if (pos.size() != kBoardSize) {
    // A smaller board is the corner of the planes: nothing off it, and the
    // ones plane its edge (as KataGo's on-board plane).
    const Bitboard board = pos.board();
    for (int p = 0; p < NumInputPlanes(f); ++p)
      for (Square s = 0; s < kNumSquares; ++s)
        if (!(board & SquareBB(s))) out[p * kNumSquares + s] = 0.0f;
  }
}

void EncodePositions(const Position* positions, int count, float* out, InputFeatures f) {
  const std::size_t size = std::size_t(NumInputPlanes(f)) * kNumSquares;
  for (int i = 0; i < count; ++i) EncodePosition(positions[i], out + std::size_t(i) * size, f);
}

void DecodeOutput(const Position& pos, const float* policy_logits, const float* value_logits, float moves_left_output,
                  EvalOutput* out) {
  MoveList moves;
  pos.GenerateMoves(moves);
  out->num_moves = moves.size();
  if (moves.size() == 1 && moves[0].is_pass()) {
    out->priors[0] = 1.0f;
  } else {
    float max_logit = -INFINITY;
    for (int i = 0; i < moves.size(); ++i) {
      out->priors[i] = policy_logits[moves[i].PolicyIndex()];
      max_logit = std::max(max_logit, out->priors[i]);
    }
    float sum = 0;
    for (int i = 0; i < moves.size(); ++i) sum += out->priors[i] = std::exp(out->priors[i] - max_logit);
    for (int i = 0; i < moves.size(); ++i) out->priors[i] /= sum;
  }
  float max_value = std::max({value_logits[0], value_logits[1], value_logits[2]});
  float sum = 0;
  for (int k = 0; k < 3; ++k) sum += out->wdl[k] = std::exp(value_logits[k] - max_value);
  for (int k = 0; k < 3; ++k) out->wdl[k] /= sum;
  out->moves_left = std::max(0.0f, moves_left_output) * kMovesLeftScale;
}

}  // namespace loa
