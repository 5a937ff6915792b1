#include "train/training_targets.h"

#include <algorithm>
#include <cmath>

#include "net/symmetry.h"

namespace loa::train {
namespace {

// The cross-entropy of each row of policy-shaped logits [N, 512] against
// targets [N, 512], over the slots the mask leaves (add 0 or kIllegalLogit).
torch::Tensor PolicyCrossEntropy(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor& mask) {
  return -(targets * torch::log_softmax(mask.defined() ? logits + mask : logits, 1)).sum(1);
}

// ---- ownership: where the game ended, per square --------------------------

float FillOwnershipTarget(const TargetSource& in, float* target) {
  if (in.sample.flags & kTreeProof) return 0.0f;  // off the line its game's end was reached by
  const FinalBoard board = in.shard.FinalOf(in.sample);
  if (!board.known()) return 0.0f;
  FillOwnership(board, Color(in.sample.side_to_move), in.symmetry, in.position.size(), target);
  return 1.0f;
}

// The cross-entropy of each square's end state, averaged over the squares.
torch::Tensor OwnershipLoss(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor&) {
  const torch::Tensor t = targets.view({targets.size(0), kOwnershipClasses, kNumSquares});
  return -(t * torch::log_softmax(logits, 1)).sum(1).mean(1);
}

// ---- reply: the move the opponent played next -----------------------------

float FillReplyTarget(const TargetSource& in, float* target) {
  if (in.sample.reply == kNoReply) return 0.0f;
  target[TransformPolicyIndex(in.symmetry, in.sample.reply, in.position.size())] = 1.0f;
  return 1.0f;
}

// No legal mask: the input does not say which move comes before the reply,
// so the head learns the legal replies as it learns the moves.
torch::Tensor ReplyLoss(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor&) {
  return PolicyCrossEntropy(logits, targets, torch::Tensor());
}

// ---- soft policy: the search's policy to the power 1/4 --------------------

float FillSoftPolicyTarget(const TargetSource& in, float* target) {
  double total = 0;
  for (int i = 0; i < kPolicySize; ++i)
    if (in.policy[i] > 0) total += std::pow(double(in.policy[i]), kSoftPolicyPower);
  if (total <= 0) return 0.0f;
  for (int i = 0; i < kPolicySize; ++i)
    if (in.policy[i] > 0) target[i] = float(std::pow(double(in.policy[i]), kSoftPolicyPower) / total);
  return 1.0f;
}

torch::Tensor SoftPolicyLoss(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor& mask) {
  return PolicyCrossEntropy(logits, targets, mask);
}

}  // namespace

const std::array<TrainingTargetRow, kNumTrainingHeads>& TrainingTargets() {
  static const std::array<TrainingTargetRow, kNumTrainingHeads> rows = {{
      {FillOwnershipTarget, OwnershipLoss},    // kOwnershipHead
      {FillReplyTarget, ReplyLoss},            // kReplyHead
      {FillSoftPolicyTarget, SoftPolicyLoss},  // kSoftPolicyHead
  }};
  return rows;
}

void FillOwnership(const FinalBoard& board, Color side, int t, int n, float* out) {
  std::fill(out, out + kOwnershipClasses * kNumSquares, 0.0f);
  const Bitboard own = TransformBitboard(t, side == kBlack ? board.black : board.white, n);
  const Bitboard enemy = TransformBitboard(t, side == kBlack ? board.white : board.black, n);
  for (int sq = 0; sq < kNumSquares; ++sq) {
    const Bitboard bit = Bitboard(1) << sq;
    if (!(BoardMask(n) & bit)) continue;  // off a smaller board: no target
    const int owner = (own & bit) ? kOwnershipOwn : (enemy & bit) ? kOwnershipEnemy : kOwnershipEmpty;
    out[owner * kNumSquares + sq] = 1.0f;
  }
}

}  // namespace loa::train
