#pragma once
// The search tree's storage: compact nodes in a chunked arena. A node's
// children are allocated on its expansion as one contiguous block, so a tree
// costs no heap allocation per node, and addresses stay put as it grows.

#include <cassert>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/move.h"

namespace loa {

// The index that names no node.
inline constexpr uint32_t kNoNode = UINT32_MAX;

// What is proven of a node, for the player who made the move into it.
enum class Proven : int8_t { kUnknown, kWin, kDraw, kLoss };

// Returns the same result seen from the other side.
constexpr Proven Flip(Proven p) { return p == Proven::kWin ? Proven::kLoss : p == Proven::kLoss ? Proven::kWin : p; }

// Returns the exact value of a proven result, in [-1, 1].
constexpr float ProvenValue(Proven p) { return p == Proven::kWin ? 1.0f : p == Proven::kLoss ? -1.0f : 0.0f; }

// A node: the edge from its parent (move and prior) and the statistics of
// the position after it. Values are for the player who made the move into
// the node, so a parent picks the child of highest value. 28 bytes.
struct Node {
  enum State : uint8_t {
    kLeaf,      // not expanded: no children yet
    kPending,   // its evaluation is in flight
    kExpanded,  // children allocated
    kTerminal,  // the game is over here (the rules core says so)
  };

  float prior = 0;           // P of the edge into this node
  float q = 0;               // mean value of the completed visits
  float d = 0;               // mean draw probability of the completed visits
  uint32_t visits = 0;       // completed visits
  uint32_t first_child = 0;  // arena index of the first child (0: none)
  uint16_t move = 0;         // Move::raw() of the edge into this node
  uint16_t in_flight = 0;    // playouts through this node not yet backed up
  uint8_t num_children = 0;  // set on expansion
  State state = kLeaf;
  Proven proven = Proven::kUnknown;
  uint8_t end_plies = 0;  // when proven: plies to the end (saturating)

  Move edge_move() const { return Move::FromRaw(move); }
  bool is_proven() const { return proven != Proven::kUnknown; }

  // Adds one completed visit of value v (draw probability dv).
  void AddVisit(float v, float dv) {
    ++visits;
    q += (v - q) / float(visits);
    d += (dv - d) / float(visits);
  }
};
static_assert(sizeof(Node) == 28, "Node layout changed");

// Nodes in chunks of 2^kChunkBits; index 0 is the root. Not thread-safe: the
// owner locks around it.
class NodeArena {
 public:
  static constexpr int kChunkBits = 12;  // 4096 nodes, 112 KiB: small trees stay small
  static constexpr uint32_t kChunkSize = uint32_t{1} << kChunkBits;

  Node& operator[](uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const Node& operator[](uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }

  // Returns the number of index slots used (nodes plus chunk-end padding).
  uint32_t size() const { return size_; }

  // Forgets every node but keeps the memory for the next tree.
  void Clear() { size_ = 0; }

  // Returns the index of n fresh, default nodes in one block; n <= kMaxMoves.
  uint32_t Allocate(int n) {
    assert(n > 0 && n <= kMaxMoves);
    if ((size_ & (kChunkSize - 1)) + uint32_t(n) > kChunkSize) size_ = (size_ | (kChunkSize - 1)) + 1;
    const uint32_t first = size_;
    while ((first + n - 1) >> kChunkBits >= chunks_.size()) chunks_.emplace_back(new Node[kChunkSize]);
    for (int i = 0; i < n; ++i) (*this)[first + i] = Node();
    size_ += n;
    return first;
  }

  void swap(NodeArena& other) {
    chunks_.swap(other.chunks_);
    std::swap(size_, other.size_);
  }

 private:
  std::vector<std::unique_ptr<Node[]>> chunks_;
  uint32_t size_ = 0;
};

}  // namespace loa
