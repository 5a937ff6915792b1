// The evaluator a board size: each position answered by its board's
// evaluator, in order, one call a run of one size; the sizes it plays, and
// what it refuses.

#include "mcts/board_size_evaluator.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/error.h"
#include "core/random_play.h"
#include "tests/mcts/test_util.h"

namespace loa {
namespace {

// A net's evaluator stand-in: plays one board, says which it is in its
// outputs' moves left, and counts its calls.
class OneBoardEvaluator : public testing::HashEvaluator {
 public:
  explicit OneBoardEvaluator(int size) : size_(size) {}
  void Evaluate(const Position* positions, int count, EvalOutput* out) override {
    for (int i = 0; i < count; ++i) ASSERT_EQ(positions[i].size(), size_) << "a position of another board";
    HashEvaluator::Evaluate(positions, count, out);
    for (int i = 0; i < count; ++i) out[i].moves_left = float(size_);
  }
  bool PlaysBoardSize(int size) const override { return size == size_; }

 private:
  int size_;
};

TEST(BoardSizeEvaluatorTest, HandsEachPositionToItsBoardsEvaluatorInOrder) {
  auto six = std::make_unique<OneBoardEvaluator>(6), eight = std::make_unique<OneBoardEvaluator>(8);
  const OneBoardEvaluator *six_seen = six.get(), *eight_seen = eight.get();
  std::map<int, std::unique_ptr<Evaluator>> by_size;
  by_size[6] = std::move(six);
  by_size[8] = std::move(eight);
  BoardSizeEvaluator evaluator(std::move(by_size));
  EXPECT_TRUE(evaluator.PlaysBoardSize(6));
  EXPECT_TRUE(evaluator.PlaysBoardSize(8));
  EXPECT_FALSE(evaluator.PlaysBoardSize(7));

  // Runs of 3 sixes, 2 eights, 4 sixes, 1 eight.
  const std::vector<Position> sixes = RandomPositions(7, 1, false, 40, 6), eights = RandomPositions(3, 2, false, 40, 8);
  const std::vector<Position> batch = {sixes[0], sixes[1], sixes[2], eights[0], eights[1],
                                       sixes[3], sixes[4], sixes[5], sixes[6],  eights[2]};
  std::vector<EvalOutput> out(batch.size());
  evaluator.Evaluate(batch.data(), int(batch.size()), out.data());
  testing::HashEvaluator reference;
  for (size_t i = 0; i < batch.size(); ++i) {
    EvalOutput expected;
    reference.Evaluate(&batch[i], 1, &expected);
    EXPECT_EQ(out[i].moves_left, float(batch[i].size())) << "position " << i << " went to another board's evaluator";
    EXPECT_EQ(out[i].num_moves, expected.num_moves) << i;
    EXPECT_EQ(out[i].wdl[0], expected.wdl[0]) << i;
    EXPECT_EQ(out[i].priors[0], expected.priors[0]) << i;
  }
  EXPECT_EQ(six_seen->calls(), 2);
  EXPECT_EQ(six_seen->positions(), 7);
  EXPECT_EQ(eight_seen->calls(), 2);
  EXPECT_EQ(eight_seen->positions(), 3);

  const std::vector<Position> seven = RandomPositions(1, 3, false, 10, 7);
  EvalOutput one;
  EXPECT_THROW(evaluator.Evaluate(seven.data(), 1, &one), Error);
}

TEST(BoardSizeEvaluatorTest, RefusesNoBoardAMissingEvaluatorAndOneOfAnotherBoard) {
  EXPECT_THROW(BoardSizeEvaluator(std::map<int, std::unique_ptr<Evaluator>>()), Error);
  std::map<int, std::unique_ptr<Evaluator>> missing;
  missing[6] = nullptr;
  EXPECT_THROW(BoardSizeEvaluator(std::move(missing)), Error);
  std::map<int, std::unique_ptr<Evaluator>> misfiled;
  misfiled[6] = std::make_unique<OneBoardEvaluator>(8);
  try {
    BoardSizeEvaluator evaluator(std::move(misfiled));
    FAIL() << "an 8x8 evaluator filed under 6x6 was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("6x6"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loa
