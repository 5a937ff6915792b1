#include "net/symmetric_evaluator.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "net/symmetry.h"

namespace loa {

SymmetricEvaluator::SymmetricEvaluator(std::unique_ptr<Evaluator> inner, int symmetries)
    : inner_(std::move(inner)), symmetries_(symmetries) {
  if (symmetries < 1 || symmetries > kNumSymmetries)
    throw Error("symmetries = " + std::to_string(symmetries) + " is outside [1, 8]");
}

void SymmetricEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  const int n = symmetries_;
  std::vector<Position> images(std::size_t(count) * n);
  for (int i = 0; i < count; ++i)
    for (int t = 0; t < n; ++t) images[std::size_t(i) * n + t] = TransformPosition(t, positions[i]);
  std::vector<EvalOutput> image_out(images.size());
  inner_->Evaluate(images.data(), int(images.size()), image_out.data());
  float prior_of_index[kPolicySize];
  for (int i = 0; i < count; ++i) {
    MoveList moves;
    positions[i].GenerateMoves(moves);
    EvalOutput& result = out[i];
    result = EvalOutput();
    result.num_moves = moves.size();
    for (int k = 0; k < 3; ++k) result.wdl[k] = 0;
    for (int t = 0; t < n; ++t) {
      const EvalOutput& image = image_out[std::size_t(i) * n + t];
      for (int k = 0; k < 3; ++k) result.wdl[k] += image.wdl[k] / n;
      result.moves_left += image.moves_left / n;
      if (moves.size() == 1 && moves[0].is_pass()) continue;
      MoveList image_moves;
      images[std::size_t(i) * n + t].GenerateMoves(image_moves);
      for (int j = 0; j < image_moves.size(); ++j) prior_of_index[image_moves[j].PolicyIndex()] = image.priors[j];
      for (int j = 0; j < moves.size(); ++j)
        result.priors[j] += prior_of_index[TransformPolicyIndex(t, moves[j].PolicyIndex(), positions[i].size())] / n;
    }
    if (moves.size() == 1 && moves[0].is_pass()) result.priors[0] = 1.0f;
  }
}

}  // namespace loa
