#include "mcts/board_size_evaluator.h"

#include <string>

#include "core/error.h"

namespace loa {

BoardSizeEvaluator::BoardSizeEvaluator(std::map<int, std::unique_ptr<Evaluator>> by_size)
    : by_size_(std::move(by_size)) {
  if (by_size_.empty()) throw Error("an evaluator a board size needs at least one board's");
  for (const auto& [size, evaluator] : by_size_) {
    const std::string board = std::to_string(size) + "x" + std::to_string(size);
    if (!evaluator) throw Error("the evaluator of the " + board + " board is missing");
    if (!evaluator->PlaysBoardSize(size))
      throw Error("the evaluator given for the " + board + " board does not play it");
  }
}

void BoardSizeEvaluator::Evaluate(const Position* positions, int count, EvalOutput* out) {
  for (int begin = 0; begin < count;) {
    const int size = positions[begin].size();
    int end = begin + 1;
    while (end < count && positions[end].size() == size) ++end;
    const auto it = by_size_.find(size);
    if (it == by_size_.end())
      throw Error("no evaluator for the " + std::to_string(size) + "x" + std::to_string(size) + " board");
    it->second->Evaluate(positions + begin, end - begin, out + begin);
    begin = end;
  }
}

}  // namespace loa
