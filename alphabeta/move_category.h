#pragma once
// Move categories and their transition probabilities, for realization-
// probability search (Tsuruoka, Yokoyama and Chikayama 2002; in LOA, Winands
// and Bjornsson 2008) and for move ordering. A move's category is a few
// facts a search node can read cheaply: whether it captures, the rings of
// its origin and target (from the board's centre outwards), whether it
// brings the piece nearer the mover's centre of mass, and how many own
// pieces the target touches. A category's transition probability is how
// often a strong player chooses a move of it when one is available; the
// search spends -log(p) of its depth on such a move (alphabeta/search.cpp).

#include <array>

#include "core/position.h"

namespace loa::ab {

inline constexpr int kNumCaptureKinds = 2;
inline constexpr int kNumRings = 4;
inline constexpr int kNumMassSteps = 3;  // nearer the centre of mass, level, farther
inline constexpr int kNumContacts = 3;   // own pieces around the target: 0, 1, 2 or more
inline constexpr int kNumMoveCategories = kNumCaptureKinds * kNumRings * kNumRings * kNumMassSteps * kNumContacts;

// What every move of one position shares: computed once per node.
class MoveCategorizer {
 public:
  explicit MoveCategorizer(const Position& pos);

  // Returns the category of the regular move m of the side to move (0 for
  // the pass, which is never in a choice).
  int Category(Move m) const;

 private:
  Bitboard own_;
  int size_;
  int count_ = 1, sum_file_ = 0, sum_rank_ = 0;
};

// A transition probability per category, and the probability that costs
// one ply of depth: a category of probability p costs log(p) / log(reference)
// plies, so likelier moves are searched deeper.
struct CategoryModel {
  std::array<float, kNumMoveCategories> probability;
  float reference = 0.1f;

  // Every category at the reference: each move costs one ply (a plain search).
  static CategoryModel Uniform();
  // The model fitted by `loaz tune-eval` and shipped (alphabeta/default_weights.inc).
  static CategoryModel Default();
};

}  // namespace loa::ab
