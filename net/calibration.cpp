#include "net/calibration.h"

namespace loa {

const std::vector<Position>& CalibrationPositions() {
  static const std::vector<Position> positions = [] {
    static constexpr const char* kPositions[] = {
#include "net/calibration_positions.inc"
    };
    std::vector<Position> out;
    for (const char* text : kPositions) out.push_back(Position::FromString(text));
    return out;
  }();
  return positions;
}

}  // namespace loa
