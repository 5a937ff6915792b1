#pragma once
// The batched self-play driver: many games advance at once on one thread, and
// the leaves of all their searches go to the evaluator as one batch. Each
// game's moves depend only on (seed, its index) and the evaluator, never on
// which other games share its batches.

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_set>
#include <vector>

#include "core/game.h"
#include "core/random.h"
#include "mcts/evaluator.h"
#include "mcts/root_stats.h"
#include "mcts/search_params.h"
#include "mcts/tree.h"

namespace loa {

// One move of a self-play game with what its search says: the training
// sample of a full search.
struct SearchedMove {
  Position position;                    // before the move
  Move move;                            // the move played
  std::vector<MoveProbability> policy;  // the policy target (PolicyTarget)
  float root_value = 0;                 // root value for the side to move, in [-1, 1]
  float root_draw = 0;                  // root mean draw probability
  Proven proven = Proven::kUnknown;     // the root's result for the side to move
  uint32_t visits = 0;                  // root visits
  bool full_search = true;              // false: a cheap search, not a training target
  float surprise = 0;                   // PolicySurprise of the target (full searches)
};

// A position that a search of the game proved, off the played line or at
// the root of a cheap search (SelfPlayGames::tree_proofs): a value target.
struct TreeProof {
  ProvenPosition proof;
  int ply = 0;  // the game's ply whose search proved it
};

// The shortest proof a tree proof has: a win in one move is 94% of what a
// 6x6 tree proves, and the value has it right already (docs/TRAINING.md,
// "The search trees' proofs").
inline constexpr int kMinTreeProofPlies = 2;

// A finished self-play game.
struct SelfPlayGame {
  int64_t index = 0;                   // its number: seeds its random choices
  Game game;                           // start, moves and result (not over if resigned)
  std::vector<SearchedMove> moves;     // moves[i] was played at ply i
  std::vector<TreeProof> tree_proofs;  // each position once a game, in the order found
};

// Which games a driver plays, and what it keeps of their searches.
struct SelfPlayGames {
  int parallel = 1;    // games advanced at once (> 0)
  uint64_t seed = 0;   // with a game's index, seeds its random choices (GameSeed)
  int64_t first = 0;   // the index of the first game
  int64_t count = -1;  // games to play; < 0: without end
  // Each game starts where this many uniformly random moves from the rules'
  // start led (drawn from the game's seed; none of them searched or
  // recorded), or at the start if they ended the game.
  int random_opening_plies = 0;
  // Per search, at most this many positions that the MCTS-Solver proved won
  // or lost in its tree in kMinTreeProofPlies or more, the longest proofs
  // first and each once a game, go
  // to SelfPlayGame::tree_proofs (the root of a cheap search among them;
  // a full search's root is its move's `proven`); 0 keeps none.
  int tree_proofs = 0;
};

// Advances many self-play games in lockstep. Not thread-safe: one driver per
// worker thread; the evaluator need not be thread-safe for it.
class SelfPlayDriver {
 public:
  // Plays the games `games` names. evaluator must outlive the driver;
  // params are copied and validated (loa::Error if out of range).
  SelfPlayDriver(Evaluator* evaluator, const SearchParams& params, const Rules& rules, const SelfPlayGames& games);
  ~SelfPlayDriver();

  // Runs one round: every game gathers its leaves, all of them are evaluated
  // in one Evaluate call, and games whose search is over play their move.
  // Appends the games that ended to *finished.
  void Step(std::vector<SelfPlayGame>* finished);

  // Returns whether every game has been played.
  bool done() const { return active_ == 0; }

  // Sets a test run after each move of a game that is not over: when it
  // returns true, the game ends there (a resignation; the caller judges who
  // resigned from the moves) and is appended to the finished games with its
  // game not over. Used by train/ (selfplay.resign_*); none by default.
  void set_resign_check(std::function<bool(const SelfPlayGame&)> check) { resign_check_ = std::move(check); }

  // Sets the playouts of a full and of a cheap search (each >= 1) from
  // every game's next move on (a run's later hours search deeper:
  // selfplay.playouts_schedule). Throws loa::Error when out of range.
  void set_playouts(int full, int cheap);

  int64_t evaluations() const { return evaluations_; }
  int64_t moves_played() const { return moves_played_; }

 private:
  struct Slot;
  bool StartGame(Slot& slot);
  void BeginMove(Slot& slot);
  void FinishMove(Slot& slot, std::vector<SelfPlayGame>* finished);
  // Adds the proofs of the slot's search to its game (games_.tree_proofs).
  void KeepTreeProofs(Slot& slot);

  Evaluator* evaluator_;
  SearchParams params_;
  const bool gumbel_;  // params_.root == "gumbel"
  const Rules rules_;
  const SelfPlayGames games_;
  int64_t next_game_, end_game_;
  std::vector<std::unique_ptr<Slot>> slots_;
  int active_ = 0;
  // The batch: positions and, for each, its slot and leaf.
  std::vector<Position> positions_;
  std::vector<EvalOutput> outputs_;
  std::vector<std::pair<int, int>> owners_;
  int64_t evaluations_ = 0, moves_played_ = 0;
  std::function<bool(const SelfPlayGame&)> resign_check_;
};

// Returns the seed of game `index` of a run seeded with `seed`.
inline uint64_t GameSeed(uint64_t seed, int64_t index) { return Mix(seed ^ Mix(uint64_t(index))); }

}  // namespace loa
