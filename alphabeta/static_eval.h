#pragma once
// The static evaluation of the alpha-beta baseline, after MIA IV: nine
// features from M. Winands, H. J. van den Herik, J. Uiterwijk, "An Evaluation
// Function for Lines of Action" (Advances in Computer Games 10, 2003), each
// computed per side from the bitboards and weighted by a named constant.

#include <array>

#include "core/position.h"

namespace loa::ab {

// The evaluation never reaches this magnitude; wins lie above it.
inline constexpr int kMaxEvaluation = 20000;

// The weight of each feature in score points per feature unit. The paper
// names the features but does not publish MIA's weights. These come from a
// logistic (Texel-style) fit of the features to the results of 22,000
// positions of 600 self-play games (3,000-6,000 nodes a move), rounded, with
// the fitted negative centralisation set to 0: +191 +- 107 Elo over the first
// hand-set weights in 60 games at 20,000 nodes a move. Mobility was then
// lowered from 10 to 8 (15 lost 163 +- 85 Elo, 6 won 44 +- 78). A refit on
// 57,000 positions of games with these weights proposed negative quads; that
// lost 48-89 Elo and was not taken. A weight of 0 means the fit found no
// value in the feature beside the others; it stays computed so that a
// tuning run can turn it on.
struct EvalWeights {
  int concentration = 4;   // per hundredth of a square of surplus distance to the centre of mass
  int centralisation = 0;  // per point of the average piece-square value (fit: about 0)
  int centre_of_mass = 0;  // per hundredth of a square from the board centre (fit: about 0)
  int quads = 1;           // per 2x2 block holding three or four own pieces
  int mobility = 8;        // per unit of weighted mobility (a quiet interior move is 2)
  int walls = 35;          // per enemy edge piece walled in by own pieces
  int connectedness = 2;   // per hundredth of an adjacent own pair per piece
  int uniformity = 6;      // per square of the bounding rectangle's area
  int side_to_move = 56;   // the tempo of the side to move
  int groups = 0;          // per own group fewer (a feature of the 2004 thesis' analysis, not of MIA IV)
  int pieces = 0;          // per own piece more
  int outside = 0;         // per own piece outside the largest own group (fewer is better)
  // Per own piece on each class of squares under the board's symmetries,
  // named by its square nearest a1 (the centre class d4 is the reference:
  // the classes' counts add up to the pieces).
  int square_a1 = 0, square_b1 = 0, square_c1 = 0, square_d1 = 0, square_b2 = 0, square_c2 = 0, square_d2 = 0,
      square_c3 = 0, square_d3 = 0;
  // The weighted sum is divided by this; a larger scale gives the weights a finer grain.
  int scale = 4;
  // Tapered: the named weights hold with all 24 pieces on the board, `late`
  // (in kEvalTerms' order) with 2, and in between they blend linearly in
  // the pieces on the board (as chess engines taper from opening to ending).
  bool tapered = false;
  std::array<int, 21> late{};

  // The weights of version 1 of the baseline (ab:version=1): the ones above.
  static EvalWeights Version1() { return EvalWeights(); }
  // The weights of a version of the baseline (1 to the latest): version 1's
  // above, versions 2 and 3's (alphabeta/version2_weights.inc), version 4's
  // and today's (Default).
  static EvalWeights Version(int version);
  // The weights fitted by `loaz tune-eval` and shipped (alphabeta/default_weights.inc).
  static EvalWeights Default();
};

// The features of one side, each oriented so that larger is better for it.
struct SideFeatures {
  int concentration = 0;   // -100 x the average surplus distance to the centre of mass
  int centralisation = 0;  // the average piece-square value (the centralisation table)
  int centre_of_mass = 0;  // -100 x the Chebyshev distance of the centre of mass from the board centre
  int quads = 0;           // 2x2 blocks holding three or four of the side's pieces
  int mobility = 0;        // weighted move count: captures double, moves to the edge halved
  int walls = 0;           // enemy pieces on the edge with own pieces on their inner side
  int connectedness = 0;   // 100 x adjacent own pairs / pieces
  int uniformity = 0;      // -(area of the smallest rectangle holding the pieces)
  int groups = 0;          // -(number of 8-connected groups)
  int pieces = 0;          // number of pieces
  int outside = 0;         // -(pieces outside the largest group)
  // Pieces on each class of squares (SquareClass); d4's is left out.
  int square_a1 = 0, square_b1 = 0, square_c1 = 0, square_d1 = 0, square_b2 = 0, square_c2 = 0, square_d2 = 0,
      square_c3 = 0, square_d3 = 0;
};

// The names of the weights in the order of a weights file, with accessors:
// the one list that the file reader, the writer and the tuner share.
struct EvalTerm {
  const char* name;
  int EvalWeights::*weight;
  int SideFeatures::*feature;  // nullptr for the side to move's tempo
};
inline constexpr EvalTerm kEvalTerms[] = {
    {"concentration", &EvalWeights::concentration, &SideFeatures::concentration},
    {"centralisation", &EvalWeights::centralisation, &SideFeatures::centralisation},
    {"centre_of_mass", &EvalWeights::centre_of_mass, &SideFeatures::centre_of_mass},
    {"quads", &EvalWeights::quads, &SideFeatures::quads},
    {"mobility", &EvalWeights::mobility, &SideFeatures::mobility},
    {"walls", &EvalWeights::walls, &SideFeatures::walls},
    {"connectedness", &EvalWeights::connectedness, &SideFeatures::connectedness},
    {"uniformity", &EvalWeights::uniformity, &SideFeatures::uniformity},
    {"groups", &EvalWeights::groups, &SideFeatures::groups},
    {"pieces", &EvalWeights::pieces, &SideFeatures::pieces},
    {"side_to_move", &EvalWeights::side_to_move, nullptr},
    // Version 4's terms, after the side to move so that older weight lists
    // keep their order.
    {"outside", &EvalWeights::outside, &SideFeatures::outside},
    {"square_a1", &EvalWeights::square_a1, &SideFeatures::square_a1},
    {"square_b1", &EvalWeights::square_b1, &SideFeatures::square_b1},
    {"square_c1", &EvalWeights::square_c1, &SideFeatures::square_c1},
    {"square_d1", &EvalWeights::square_d1, &SideFeatures::square_d1},
    {"square_b2", &EvalWeights::square_b2, &SideFeatures::square_b2},
    {"square_c2", &EvalWeights::square_c2, &SideFeatures::square_c2},
    {"square_d2", &EvalWeights::square_d2, &SideFeatures::square_d2},
    {"square_c3", &EvalWeights::square_c3, &SideFeatures::square_c3},
    {"square_d3", &EvalWeights::square_d3, &SideFeatures::square_d3},
};
static_assert(sizeof(kEvalTerms) / sizeof(kEvalTerms[0]) == std::tuple_size<decltype(EvalWeights::late)>::value);

// Returns the index in kEvalTerms of the term whose weight is `weight`.
constexpr int TermIndex(int EvalWeights::*weight) {
  int k = 0;
  while (kEvalTerms[k].weight != weight) ++k;
  return k;
}

// The pieces on the board at which a tapered evaluation takes its named
// weights (kTaperFull) and its late ones (kTaperEmpty).
inline constexpr int kTaperFull = 24;
inline constexpr int kTaperEmpty = 2;

// Returns the features of side c in pos (groups and outside left 0 unless with_groups);
// pure and thread-safe.
SideFeatures ComputeFeatures(const Position& pos, Color c, bool with_groups = true);

// Returns the evaluation of pos for the side to move, |value| < kMaxEvaluation.
// Invariant under the 8 symmetries of the board and under swapping colours.
int StaticScore(const Position& pos, const EvalWeights& weights = EvalWeights());

}  // namespace loa::ab
