#pragma once
// The static evaluation of the alpha-beta baseline, after MIA IV: nine
// features from M. Winands, H. J. van den Herik, J. Uiterwijk, "An Evaluation
// Function for Lines of Action" (Advances in Computer Games 10, 2003), each
// computed per side from the bitboards and weighted by a named constant.

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
};

// The features of one side, each oriented so that larger is better for it.
struct SideFeatures {
  int concentration = 0;   // -100 x the average surplus distance to the centre of mass
  int centralisation = 0;  // the average piece-square value (kCentralisation table)
  int centre_of_mass = 0;  // -100 x the Chebyshev distance of the centre of mass from the board centre
  int quads = 0;           // 2x2 blocks holding three or four of the side's pieces
  int mobility = 0;        // weighted move count: captures double, moves to the edge halved
  int walls = 0;           // enemy pieces on the edge with own pieces on their inner side
  int connectedness = 0;   // 100 x adjacent own pairs / pieces
  int uniformity = 0;      // -(area of the smallest rectangle holding the pieces)
};

// Returns the features of side c in pos; pure and thread-safe.
SideFeatures ComputeFeatures(const Position& pos, Color c);

// Returns the evaluation of pos for the side to move, |value| < kMaxEvaluation.
// Invariant under the 8 symmetries of the board and under swapping colours.
int StaticScore(const Position& pos, const EvalWeights& weights = EvalWeights());

}  // namespace loa::ab
