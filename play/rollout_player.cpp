// rollout:sims=N: Monte-Carlo tree search with uniformly random playouts and
// MCTS-Solver backups (Winands, Bjornsson, Saito, "Monte-Carlo Tree Search
// Solver", CG 2008, where LOA was the test domain). Repetitions are not
// tracked inside the tree or the playouts; the game's own rules judge the
// moves played.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "play/players.h"
#include "play/seed.h"

namespace loa {
namespace {

// UCT's exploration constant for rewards in [0, 1]: 1/sqrt(2) (Kocsis and
// Szepesvari 2006).
constexpr double kDefaultExploration = 0.7071;
// A playout longer than this many plies is scored a draw; random play
// unites a side long before (about 100 plies on average from the start,
// measured with `loaz match random random`).
constexpr int kMaxPlayoutPlies = 300;
constexpr int64_t kDefaultSeed = 1;
// Nodes reserved up front: about this many children per simulation (the
// average number of legal moves in midgame positions), for at most this
// many simulations.
constexpr int kReserveChildren = 32;
constexpr int kReserveSimulations = 100'000;

// A node's proof, for the side to move at the node.
enum class Proof : int8_t { kNone, kWin, kLoss };

struct Node {
  Position position;
  Move move;  // the move that led here
  int parent = -1;
  int first_child = -1;  // children are contiguous; -1 before expansion
  int num_children = 0;
  bool terminal = false;       // the move that led here ended the game
  double terminal_reward = 0;  // for the mover, when terminal
  Proof proof = Proof::kNone;
  int proof_plies = 0;  // plies to the end of the proven line
  int visits = 0;
  double reward = 0;  // summed over visits, for the side that moved here
};

class RolloutPlayer : public Player {
 public:
  RolloutPlayer(std::string name, int simulations, double exploration, uint64_t seed)
      : name_(std::move(name)), simulations_(simulations), exploration_(exploration), spec_seed_(seed), rng_(seed) {}
  std::string name() const override { return name_; }
  void SetSeed(uint64_t seed) override { rng_.seed(MixSeed(spec_seed_, seed)); }
  Move ChooseMove(const Game& game, const Clock& clock) override;

 private:
  void Expand(int index);
  int Select(int index);
  double Playout(const Position& start);
  void UpdateProof(int index);
  Move BestMove() const;

  std::string name_;
  int simulations_;
  double exploration_;
  uint64_t spec_seed_;
  std::mt19937_64 rng_;
  Simultaneous simultaneous_ = Simultaneous::kDraw;
  std::vector<Node> nodes_;
};

// Returns the reward of a finished game for `mover`: 1, 0.5 or 0.
double RewardFor(const Verdict& verdict, Color mover) {
  if (verdict.result == Result::kDraw) return 0.5;
  return verdict.result == WinFor(mover) ? 1.0 : 0.0;
}

void RolloutPlayer::Expand(int index) {
  MoveList moves;
  nodes_[index].position.GenerateMoves(moves);
  const Position parent_position = nodes_[index].position;
  const Color mover = parent_position.side_to_move();
  nodes_[index].first_child = int(nodes_.size());
  nodes_[index].num_children = moves.size();
  for (Move m : moves) {
    Node child;
    child.position = parent_position.Apply(m);
    child.move = m;
    child.parent = index;
    const Verdict verdict = UnitedVerdict(child.position, mover, simultaneous_);
    if (verdict.over()) {
      child.terminal = true;
      child.terminal_reward = RewardFor(verdict, mover);
      if (verdict.result != Result::kDraw)
        child.proof = verdict.result == WinFor(mover) ? Proof::kLoss : Proof::kWin;  // for the side to move there
    }
    nodes_.push_back(child);
  }
}

int RolloutPlayer::Select(int index) {
  const Node& parent = nodes_[index];
  const double log_visits = std::log(double(std::max(parent.visits, 1)));
  int best = -1;
  double best_value = -std::numeric_limits<double>::infinity();
  for (int i = parent.first_child; i < parent.first_child + parent.num_children; ++i) {
    const Node& child = nodes_[i];
    if (child.proof == Proof::kWin) continue;  // the opponent wins there
    if (child.visits == 0) return i;           // every child once, in order
    const double value = child.reward / child.visits + exploration_ * std::sqrt(log_visits / child.visits);
    if (value > best_value) {
      best_value = value;
      best = i;
    }
  }
  assert(best >= 0);  // else every child is lost and the node is proven
  return best;
}

double RolloutPlayer::Playout(const Position& start) {
  Position pos = start;
  for (int ply = 0; ply < kMaxPlayoutPlies; ++ply) {
    MoveList moves;
    pos.GenerateMoves(moves);
    const Color mover = pos.side_to_move();
    pos = pos.Apply(moves[RandomBelow(rng_, moves.size())]);
    const Verdict verdict = UnitedVerdict(pos, mover, simultaneous_);
    // The reward is for the side to move at start.
    if (verdict.over()) return RewardFor(verdict, start.side_to_move());
  }
  return 0.5;
}

void RolloutPlayer::UpdateProof(int index) {
  Node& node = nodes_[index];
  if (node.first_child < 0 || node.proof != Proof::kNone) return;
  bool all_lost = true;
  int win_plies = std::numeric_limits<int>::max(), loss_plies = 0;
  for (int i = node.first_child; i < node.first_child + node.num_children; ++i) {
    const Node& child = nodes_[i];
    if (child.proof == Proof::kLoss) win_plies = std::min(win_plies, child.proof_plies + 1);
    if (child.proof != Proof::kWin)
      all_lost = false;
    else
      loss_plies = std::max(loss_plies, child.proof_plies + 1);
  }
  if (win_plies != std::numeric_limits<int>::max()) {
    node.proof = Proof::kWin;
    node.proof_plies = win_plies;
  } else if (all_lost) {
    node.proof = Proof::kLoss;
    node.proof_plies = loss_plies;
  }
}

Move RolloutPlayer::BestMove() const {
  const Node& root = nodes_[0];
  int best = -1;
  for (int i = root.first_child; i < root.first_child + root.num_children; ++i) {
    const Node& c = nodes_[i];
    if (best < 0) {
      best = i;
      continue;
    }
    const Node& b = nodes_[best];
    // A proven win for us (a loss for the side to move there), the shortest;
    // else the most visited move not proven lost; a lost move last.
    auto rank = [](const Node& n) { return n.proof == Proof::kLoss ? 2 : n.proof == Proof::kNone ? 1 : 0; };
    if (rank(c) != rank(b)) {
      if (rank(c) > rank(b)) best = i;
    } else if (rank(c) == 2   ? c.proof_plies < b.proof_plies
               : rank(c) == 0 ? c.proof_plies > b.proof_plies
                              : c.visits > b.visits) {
      best = i;
    }
  }
  return nodes_[best].move;
}

Move RolloutPlayer::ChooseMove(const Game& game, const Clock&) {
  simultaneous_ = game.rules().simultaneous;
  nodes_.clear();
  nodes_.reserve(size_t(std::min(simulations_, kReserveSimulations)) * kReserveChildren);
  Node root;
  root.position = game.position();
  nodes_.push_back(root);
  for (int sim = 0; sim < simulations_ && nodes_[0].proof == Proof::kNone; ++sim) {
    std::vector<int> path{0};
    int index = 0;
    while (nodes_[index].first_child >= 0 && nodes_[index].proof == Proof::kNone) {
      index = Select(index);
      path.push_back(index);
      if (nodes_[index].terminal || nodes_[index].proof != Proof::kNone) break;
    }
    double reward;  // for the side that moved into nodes_[index]
    Node& leaf = nodes_[index];
    if (leaf.terminal) {
      reward = leaf.terminal_reward;
    } else if (leaf.proof != Proof::kNone) {
      reward = leaf.proof == Proof::kLoss ? 1.0 : 0.0;
    } else {
      Expand(index);
      UpdateProof(index);
      const Proof proof = nodes_[index].proof;
      reward = proof == Proof::kNone ? 1.0 - Playout(nodes_[index].position) : proof == Proof::kLoss ? 1.0 : 0.0;
    }
    for (int i = int(path.size()) - 1; i >= 0; --i) {
      Node& n = nodes_[path[i]];
      ++n.visits;
      n.reward += reward;
      reward = 1.0 - reward;
      UpdateProof(path[i]);
    }
  }
  return BestMove();
}

}  // namespace

std::unique_ptr<Player> MakeRolloutPlayer(const PlayerSpec& spec) {
  spec.CheckKeys({"sims", "c", "seed"});
  const int simulations = int(spec.GetInt("sims", 1000, 1, 10'000'000));
  const double exploration = spec.GetDouble("c", kDefaultExploration, 0, 100);
  const uint64_t seed = spec.GetInt("seed", kDefaultSeed, 0, std::numeric_limits<int64_t>::max());
  return std::make_unique<RolloutPlayer>(spec.text(), simulations, exploration, seed);
}

}  // namespace loa
