#include "alphabeta/move_category.h"

#include <algorithm>
#include <cstdlib>

#include "core/bitboard.h"

namespace loa::ab {
namespace {

// 3 for the edge of the n x n board, 2 for the ring inside it, and so on
// (0 for the four centre squares of 8 x 8).
constexpr int Ring(Square s, int n) {
  const int depth = std::min({FileOf(s), n - 1 - FileOf(s), RankOf(s), n - 1 - RankOf(s)});
  return 3 - depth;
}

}  // namespace

MoveCategorizer::MoveCategorizer(const Position& pos) : own_(pos.pieces(pos.side_to_move())), size_(pos.size()) {
  count_ = std::max(1, PopCount(own_));
  for (int i = 1; i < 8; ++i) {
    sum_file_ += i * PopCount(own_ & (kFileA << i));
    sum_rank_ += i * PopCount(own_ & (kRank1 << (8 * i)));
  }
}

int MoveCategorizer::Category(Move m) const {
  if (m.is_pass() || m.is_null()) return 0;
  const Square from = m.from(), to = m.to();
  // Chebyshev distances to the centre of mass, in units of 1/count.
  const auto distance = [&](Square s) {
    return std::max(std::abs(FileOf(s) * count_ - sum_file_), std::abs(RankOf(s) * count_ - sum_rank_));
  };
  const int before = distance(from), after = distance(to);
  const int mass_step = after < before - count_ / 2 ? 0 : after <= before + count_ / 2 ? 1 : 2;
  const int contacts = std::min(2, PopCount(Neighbours(SquareBB(to)) & own_ & ~SquareBB(from)));
  int c = m.is_capture();
  c = c * kNumRings + Ring(from, size_);
  c = c * kNumRings + Ring(to, size_);
  c = c * kNumMassSteps + mass_step;
  return c * kNumContacts + contacts;
}

CategoryModel CategoryModel::Uniform() {
  CategoryModel model;
  model.probability.fill(model.reference);
  return model;
}

CategoryModel CategoryModel::Default() {
#include "alphabeta/default_categories.inc"
}

}  // namespace loa::ab
