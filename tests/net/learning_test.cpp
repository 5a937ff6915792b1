// The learning test (OpenSpiel style): a small net overfits a fixed set of
// positions whose best moves are known, wins in one, on the CPU in seconds.
// It checks that the model, its heads, the policy indexing and the export
// fit together well enough to learn.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/game.h"
#include "net/cpu_evaluator.h"
#include "net/model.h"
#include "tests/net/encode_batch.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

// A position with the moves that win at once (unite the mover's pieces
// without uniting the opponent's, docs/RULES.md rule 8).
struct WinInOne {
  Position position;
  std::vector<Move> winning;
  int num_moves;
};

// Returns up to `count` positions from random games in which some but at
// most a third of the legal moves win at once.
std::vector<WinInOne> WinsInOne(int count, uint32_t seed) {
  std::vector<WinInOne> out;
  for (const Position& pos : RandomPositions(20000, seed)) {
    MoveList moves;
    pos.GenerateMoves(moves);
    WinInOne w{pos, {}, moves.size()};
    for (Move m : moves)
      if (UnitedVerdict(pos.Apply(m), pos.side_to_move(), Simultaneous::kDraw).result == WinFor(pos.side_to_move()))
        w.winning.push_back(m);
    if (!w.winning.empty() && int(w.winning.size()) * 3 <= moves.size()) out.push_back(w);
    if (int(out.size()) == count) break;
  }
  return out;
}

TEST(LearningTest, SmallNetLearnsWinsInOne) {
  const int kPositions = 32;
  // Tuned so that the test takes a few seconds on one core: a 2 x 32 net,
  // full-batch Adam (learning rate 3e-3), 150 steps.
  const int kSteps = 150;
  torch::manual_seed(7);
  std::vector<WinInOne> data = WinsInOne(kPositions, 7);
  ASSERT_EQ(int(data.size()), kPositions);

  std::vector<Position> positions;
  torch::Tensor policy_target = torch::zeros({kPositions, kPolicySize});
  torch::Tensor legal = torch::zeros({kPositions, kPolicySize}, torch::kBool);
  for (int i = 0; i < kPositions; ++i) {
    positions.push_back(data[i].position);
    for (Move m : data[i].winning) policy_target[i][m.PolicyIndex()] = 1.0f / data[i].winning.size();
    MoveList moves;
    data[i].position.GenerateMoves(moves);
    for (Move m : moves) legal[i][m.PolicyIndex()] = true;
  }
  torch::Tensor input = testing::EncodeBatch(positions.data(), kPositions);
  torch::Tensor win = torch::zeros({kPositions}, torch::kLong);  // class 0: the side to move wins
  torch::Tensor one_ply = torch::full({kPositions}, 1.0f / kMovesLeftScale);

  NetConfig config = testing::SmallConfig(2, 32, 2, true);
  LoaNet model(config);
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(3e-3));
  model->train();
  float first_loss = 0, loss_value = 0;
  for (int step = 0; step < kSteps; ++step) {
    adam.zero_grad();
    NetOutput out = model->forward(input);
    torch::Tensor log_policy = torch::log_softmax(out.policy.masked_fill(~legal, -1e9), 1);
    torch::Tensor loss = -(policy_target * log_policy).sum(1).mean() +
                         torch::nll_loss(torch::log_softmax(out.value, 1), win) +
                         torch::mse_loss(out.moves_left, one_ply);
    loss.backward();
    adam.step();
    loss_value = loss.item<float>();
    if (step == 0) first_loss = loss_value;
  }
  // The policy loss cannot go below the entropy of the targets (uniform over
  // the winning moves); what is above it must have mostly gone.
  float entropy = 0;
  for (const WinInOne& w : data) entropy += std::log(float(w.winning.size())) / kPositions;
  EXPECT_LT(loss_value - entropy, 0.05f * first_loss) << "loss " << first_loss << " -> " << loss_value;

  // Played through the export on the cpu backend, in eval mode (running statistics).
  CpuEvaluator evaluator(ToExport(model, "", kSteps), 1);
  std::vector<EvalOutput> outputs(kPositions);
  evaluator.Evaluate(positions.data(), kPositions, outputs.data());
  int solved = 0;
  for (int i = 0; i < kPositions; ++i) {
    MoveList moves;
    positions[i].GenerateMoves(moves);
    const EvalOutput& out = outputs[i];
    int best = int(std::max_element(out.priors, out.priors + out.num_moves) - out.priors);
    bool wins = std::find(data[i].winning.begin(), data[i].winning.end(), moves[best]) != data[i].winning.end();
    solved += wins;
    EXPECT_GT(out.wdl[0], 0.9f) << positions[i].ToString();
  }
  EXPECT_EQ(solved, kPositions);
}

}  // namespace
}  // namespace loa
