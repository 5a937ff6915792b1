#pragma once
// The testing header of solve/: what tests and benchmarks share, never
// included by the program (tests/app/layers_test.py holds every
// */testing.h to tests/ and bench/). Positions with a forced result, for
// the solvers' tests (the MCTS-Solver's and df-pn's) and bench/solve_bench: found by random
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
    // Found the same way for df-pn (positions of at most 14 pieces after
    // 30 to 90 random plies, seeds 7 and 9).
    {"3b2bb/b5w1/1b3w1w/8/5w2/8/2b2wb1/1b3b2 w", true, 5},
    {"4b1b1/1w6/7w/2w1w3/4w1b1/3w2b1/b2b4/8 w", true, 5},
    {"8/8/8/5bb1/b1b3w1/1w4ww/8/1w6 b", true, 5},
    {"8/1w6/1b6/wb2ww2/b4w2/1wbb1w2/8/7w w", false, 4},
    {"8/b2w4/3b2w1/5w2/1wb5/7w/5ww1/3w4 w", false, 4},
    {"2w5/6w1/w7/6bw/2w5/2wbb3/w1bb1b2/7w w", false, 4},
    {"6b1/8/2bw4/2b3b1/1b6/1b3w2/4wb2/8 b", false, 4},
    {"b4w1w/1b4w1/wb3b2/2b4w/w6w/8/w7/2w5 w", false, 4},
    {"8/7w/5w2/b3b3/1b1b4/3b1b2/2wbbw2/1w2w3 w", false, 4},
    {"b7/4w2b/1b6/1w6/5b2/4b1b1/8/b5bb b", false, 4},
    {"5b2/b7/8/5b2/b5b1/2bw2b1/4w3/1w6 b", false, 4},
};

}  // namespace loa::testing
