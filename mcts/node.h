#pragma once
// The search tree's storage: compact nodes in a chunked arena. A node's
// children are allocated on its expansion as one contiguous block, so a tree
// costs no heap allocation per node, and addresses stay put as it grows.

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "core/move.h"
#include "core/spin_lock.h"

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
// the node, so a parent picks the child of highest value. 32 bytes.
//
// Threads share a tree (mcts/tree.h): the statistics, the in-flight count,
// the state and the proof are atomics that selection reads without a lock
// (relaxed: a value a playout old is as good as the newest); the edge
// (move, prior) and the children block (first_child, num_children) are
// written once, before the state becomes kExpanded with release order, and
// read only after an acquire load has seen kExpanded.
struct Node {
  enum State : uint8_t {
    kLeaf,      // not expanded: no children yet
    kPending,   // its evaluation is in flight
    kExpanded,  // children allocated
    kTerminal,  // the game is over here (the rules core says so)
  };

  float prior = 0;                  // P of the edge into this node
  std::atomic<float> q{0};          // mean value of the completed visits
  std::atomic<float> d{0};          // mean draw probability of the completed visits
  std::atomic<float> q2{0};         // mean square of the completed visits' values (their spread)
  std::atomic<uint32_t> visits{0};  // completed visits
  uint32_t first_child = 0;         // arena index of the first child (0: none)
  uint16_t move = 0;                // Move::raw() of the edge into this node
  // Playouts through this node not yet backed up (the low 15 bits), and
  // with threads the lock of its statistics (kStatsLock): a backup takes
  // the lock and brings the count down on the node's own cache line.
  std::atomic<uint16_t> in_flight{0};
  uint8_t num_children = 0;         // set on expansion
  std::atomic<State> state{kLeaf};  // see State
  std::atomic<Proven> proven{Proven::kUnknown};
  std::atomic<uint8_t> end_plies{0};  // when proven: plies to the end (saturating)

  Node() = default;
  // Copies (one thread: the arena's moves between searches) load and store
  // each field relaxed.
  Node(const Node& other) { *this = other; }
  Node& operator=(const Node& other) {
    prior = other.prior;
    q.store(other.q.load(kRelaxed), kRelaxed);
    d.store(other.d.load(kRelaxed), kRelaxed);
    q2.store(other.q2.load(kRelaxed), kRelaxed);
    visits.store(other.visits.load(kRelaxed), kRelaxed);
    first_child = other.first_child;
    move = other.move;
    in_flight.store(other.in_flight.load(kRelaxed), kRelaxed);
    num_children = other.num_children;
    state.store(other.state.load(kRelaxed), kRelaxed);
    proven.store(other.proven.load(kRelaxed), kRelaxed);
    end_plies.store(other.end_plies.load(kRelaxed), kRelaxed);
    return *this;
  }

  Move edge_move() const { return Move::FromRaw(move); }
  Proven result() const { return proven.load(std::memory_order_acquire); }
  bool is_proven() const { return result() != Proven::kUnknown; }
  uint32_t n() const { return visits.load(kRelaxed); }
  uint32_t n_in_flight() const { return in_flight.load(kRelaxed) & (kStatsLock - 1); }
  float value() const { return q.load(kRelaxed); }
  float draw() const { return d.load(kRelaxed); }
  float square() const { return q2.load(kRelaxed); }
  // The state with acquire order: after kExpanded, the children block may
  // be read.
  State current_state() const { return state.load(std::memory_order_acquire); }

  // With threads: takes the lock of the statistics (AddVisit's).
  void LockStats() {
    SpinBackoff backoff;
    while (in_flight.fetch_or(kStatsLock, std::memory_order_acquire) & kStatsLock)
      while (in_flight.load(kRelaxed) & kStatsLock) backoff.Wait();
  }
  // Releases the lock and takes the `landed` backed-up playouts off the
  // count, in one step.
  void UnlockStatsAndLand(int landed = 1) {
    in_flight.fetch_sub(uint16_t(kStatsLock + landed), std::memory_order_release);
  }

  // Adds one completed visit of value v (draw probability dv). The caller
  // makes it exclusive (one thread, or LockStats).
  void AddVisit(float v, float dv) {
    const uint32_t count = visits.load(kRelaxed) + 1;
    const float mean = q.load(kRelaxed), draws = d.load(kRelaxed), square = q2.load(kRelaxed);
    q.store(mean + (v - mean) / float(count), kRelaxed);
    d.store(draws + (dv - draws) / float(count), kRelaxed);
    q2.store(square + (v * v - square) / float(count), kRelaxed);
    visits.store(count, kRelaxed);
  }

  // The most playouts in flight through one node (SearchParams::Validate).
  static constexpr uint32_t kMaxInFlight = 0x7fff;

 private:
  static constexpr uint16_t kStatsLock = 0x8000;
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
};
static_assert(sizeof(Node) == 32, "Node layout changed");

// Nodes in chunks of 2^kChunkBits; index 0 is the root. Allocate needs one
// thread at a time (the tree's lock); nodes already allocated may be read
// and updated meanwhile, as long as the chunk table does not grow: threads
// that share the arena Reserve first.
class NodeArena {
 public:
  static constexpr int kChunkBits = 12;  // 4096 nodes, 128 KiB: small trees stay small
  static constexpr uint32_t kChunkSize = uint32_t{1} << kChunkBits;

  Node& operator[](uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const Node& operator[](uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }

  // Returns the number of index slots used (nodes plus chunk-end padding).
  uint32_t size() const { return size_.load(std::memory_order_relaxed); }

  // Returns whether `slots` index slots fit without growing the chunk table.
  bool Fits(uint64_t slots) const { return (slots + kChunkSize - 1) >> kChunkBits <= chunks_.size(); }

  // Grows the chunk table (not the chunks) to hold `slots` index slots, so
  // that allocations up to there leave it in place. One thread only.
  void Reserve(uint64_t slots) {
    const uint64_t chunks = (slots + kChunkSize - 1) >> kChunkBits;
    if (chunks > chunks_.size()) chunks_.resize(chunks);
  }

  // Forgets every node but keeps the memory for the next tree.
  void Clear() { size_.store(0, std::memory_order_relaxed); }
  // Forgets every node and frees the memory.
  void Release() {
    decltype(chunks_)().swap(chunks_);
    size_.store(0, std::memory_order_relaxed);
  }

  // Returns the index of n fresh, default nodes in one block (never across
  // chunks); n <= kMaxMoves.
  uint32_t Allocate(int n) {
    const uint32_t first = Claim(n);
    Fresh(first, n);
    return first;
  }

  // Allocate in two steps, for threads that share the arena: Claim returns
  // the block's index, its chunk in place but its nodes not yet made
  // (their memory untouched: the page faults of a new chunk come in Fresh,
  // outside the caller's lock); Fresh makes them default nodes, before any
  // other thread can reach them.
  uint32_t Claim(int n) {
    assert(n > 0 && n <= kMaxMoves);
    uint32_t first = size();
    if ((first & (kChunkSize - 1)) + uint32_t(n) > kChunkSize) first = (first | (kChunkSize - 1)) + 1;
    const uint32_t chunk = first >> kChunkBits;
    if (chunk >= chunks_.size()) chunks_.resize(chunk + 1);
    if (!chunks_[chunk]) {
      chunks_[chunk].reset(static_cast<Node*>(std::malloc(sizeof(Node) * kChunkSize)));
      if (!chunks_[chunk]) throw std::bad_alloc();
    }
    size_.store(first + uint32_t(n), std::memory_order_relaxed);
    return first;
  }
  void Fresh(uint32_t first, int n) {
    for (int i = 0; i < n; ++i) new (&(*this)[first + i]) Node();
  }

  void swap(NodeArena& other) {
    chunks_.swap(other.chunks_);
    const uint32_t size = this->size();
    size_.store(other.size(), std::memory_order_relaxed);
    other.size_.store(size, std::memory_order_relaxed);
  }

 private:
  // Raw memory: a chunk's nodes are made by Fresh as they are claimed.
  struct FreeChunk {
    void operator()(Node* chunk) const { std::free(chunk); }
  };
  static_assert(std::is_trivially_destructible<Node>::value, "chunks are freed without destructors");
  std::vector<std::unique_ptr<Node[], FreeChunk>> chunks_;  // null: not allocated yet
  std::atomic<uint32_t> size_{0};
};

}  // namespace loa
