#include "core/bitboard.h"

#include <gtest/gtest.h>

namespace loa {
namespace {
TEST(Bitboard, SingleSquareIsConnected) { EXPECT_TRUE(IsConnected(SquareBB(27))); }
}  // namespace
}  // namespace loa
