#pragma once
// The network's view of a position: input planes, the policy index, and the
// decoding of the heads into an EvalOutput. No LibTorch here.

#include <string>
#include <vector>

#include "core/move.h"
#include "core/position.h"
#include "mcts/evaluator.h"

namespace loa {

// The version of the input encoding, stored with every checkpoint and export;
// bump it whenever a plane changes meaning or order.
inline constexpr int kEncoderVersion = 1;

// The input planes, 8x8 floats each, square i at offset i (a1 = 0, h8 = 63).
// The line-count planes hold the piece count (both colours) of the square's
// line of that orientation divided by 8: the distance a piece there moves
// along it, scaled to (0, 1]. The ones plane lets the convolutions see the
// board's edge through the zero padding.
enum InputPlane : int {
  kOwnPlane,                // pieces of the side to move
  kEnemyPlane,              // pieces of the other side
  kFileCountPlane,          // Orientation kFileLine
  kDiagonalCountPlane,      // Orientation kDiagonalLine
  kRankCountPlane,          // Orientation kRankLine
  kAntiDiagonalCountPlane,  // Orientation kAntiDiagonalLine
  kOnesPlane,
  kNumInputPlanes
};

// The first line-count plane; the plane of orientation o is kLineCountPlane + o.
inline constexpr int kLineCountPlane = kFileCountPlane;
// Floats per encoded position of the basic set: planes x 64 squares (NCHW
// without the N).
inline constexpr int kInputSize = kNumInputPlanes * kNumSquares;

// The input sets. A net's architecture names its set (NetConfig::
// input_features); the encoder version covers them all.
//   basic: the planes above;
//   connection: the basic planes, then the game's own structure, as MIA's
//     evaluation reads it (connection by groups, concentration, mobility);
//   threat: the connection planes, then one move of lookahead for each side
//     (the wins in one move, and the fewest groups a piece's move leaves), as
//     KataGo's ladder planes hand the net a tactic it would need depth for.
enum class InputFeatures { kBasic, kConnection, kThreat };

// The planes the connection set adds after the basic ones. Values of a
// piece's plane are 0 on the squares without one.
enum ConnectionPlane : int {
  kOwnGroupSizePlane = kNumInputPlanes,  // each own piece: the size of its group / 12
  kEnemyGroupSizePlane,                  // each enemy piece: the same
  kOwnGroupsPlane,                       // everywhere: (own groups - 1) / 11
  kEnemyGroupsPlane,                     // everywhere: (enemy groups - 1) / 11
  kOwnSpreadPlane,                       // each own piece: Chebyshev distance to the own centre of mass / 7
  kEnemySpreadPlane,                     // each enemy piece: the same for its side
  kTargetPlane,                          // each square: the moves of the side to move that land there / 4, at most 1
  kNumConnectionPlanes
};

// The planes the threat set adds after the connection ones. The enemy's are
// its moves as if it were to move now (a null move of the side to move). A
// move "wins" when the mover's pieces are one group after it (whatever the
// rules' `simultaneous` then says).
enum ThreatPlane : int {
  kOwnWinFromPlane = kNumConnectionPlanes,  // each own piece with a move that wins: 1
  kOwnWinToPlane,                           // each square a winning move of the side to move lands on: 1
  kEnemyWinFromPlane,                       // the same for the enemy
  kEnemyWinToPlane,
  kOwnMoveGroupsPlane,    // each own piece: the fewest own groups one of its moves leaves / 12 (no move: now's)
  kEnemyMoveGroupsPlane,  // each enemy piece: the same for its side
  kNumThreatPlanes
};
inline constexpr int kMaxInputPlanes = kNumThreatPlanes;

// Returns the planes of an input set.
constexpr int NumInputPlanes(InputFeatures f) {
  return f == InputFeatures::kBasic        ? int(kNumInputPlanes)
         : f == InputFeatures::kConnection ? int(kNumConnectionPlanes)
                                           : int(kNumThreatPlanes);
}
// The names of the input sets, in the enum's order: the config's choices.
const std::vector<std::string>& InputFeaturesNames();
// Returns the name of an input set ("basic", "connection", "threat") / the
// set of a name; throws Error naming an unknown one.
const char* InputFeaturesName(InputFeatures f);
InputFeatures InputFeaturesOf(const std::string& name);

// Writes the planes of pos into out[0, NumInputPlanes(f) * 64). Thread-safe.
void EncodePosition(const Position& pos, float* out, InputFeatures f = InputFeatures::kBasic);

// Writes count positions one after another, NumInputPlanes(f) * 64 floats
// each: the NCHW layout the model takes. Thread-safe; allocation-free.
void EncodePositions(const Position* positions, int count, float* out, InputFeatures f = InputFeatures::kBasic);

// Returns the policy index (0..511) of a regular move: from * 8 + direction.
inline int PolicyIndexOf(Move m) { return m.PolicyIndex(); }

// Returns the legal move of policy index i in pos, or the null move when the
// slot holds no legal move there. Thread-safe.
inline Move MoveOfPolicyIndex(const Position& pos, int i) { return pos.MoveAt(PolicyFrom(i), PolicyDirection(i)); }

// Fills out for pos from its raw heads: the policy logits (512, indexed by
// PolicyIndex) soft-maxed over the legal moves only, the three WDL logits
// soft-maxed, and the moves-left output (plies / kMovesLeftScale, clamped at
// 0; pass 0 when the net has no such head). Thread-safe.
void DecodeOutput(const Position& pos, const float* policy_logits, const float* value_logits, float moves_left_output,
                  EvalOutput* out);

// The moves-left head predicts the remaining plies divided by this (so that
// its target is of order 1; LOA games last some 40-100 plies).
inline constexpr float kMovesLeftScale = 100.0f;

}  // namespace loa
