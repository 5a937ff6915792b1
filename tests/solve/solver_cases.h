#pragma once
// Positions with a forced result, shared by the solvers' tests (the
// MCTS-Solver's and df-pn's) and `loaz bench solve`: found by random
// playouts and classified by brute force (tests/mcts/test_util.h,
// SolveWithin), each a win or a loss in exactly `plies` plies for the side to
// move under the default rules.

namespace loa::testing {

struct SolverCase {
  const char* position;
  bool win;   // else a loss
  int plies;  // exactly: not within plies - 2
};

inline constexpr SolverCase kSolverCases[] = {
    {"7w/8/7w/8/8/b7/8/b7 b", true, 1},
    {"8/1w6/8/3b4/3w2w1/7w/8/6b1 b", true, 3},
    {"2w3ww/1w3w1w/8/1b3b2/6w1/3bw3/8/3wbb2 b", true, 3},
    {"8/8/3b4/8/4w3/1w2bw2/8/8 w", true, 3},
    {"7w/8/1w2w3/2b5/8/3b1b2/6w1/2bw2b1 b", true, 5},
    {"8/8/5b1w/8/2w5/7w/5wbw/4b3 b", true, 5},
    {"4b3/3b2bb/2b5/7b/6b1/4w2b/1w1w4/b1w3w1 b", false, 2},
    {"2bb1w2/4w1w1/b1w3w1/3b4/8/8/8/8 b", false, 2},
    {"8/8/8/8/2b2w2/7b/8/4w3 b", false, 4},
    {"8/4w3/8/1b6/3w4/2w5/7b/4b2b b", false, 4},
};

}  // namespace loa::testing
