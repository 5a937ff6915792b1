#include "solve/dfpn.h"

#include <sys/mman.h>
#include <algorithm>
#include <chrono>

#include <mutex>
#include <new>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "core/position.h"
#include "core/spin_lock.h"

namespace loa::solve {

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kWin:
      return "won";
    case Outcome::kLoss:
      return "lost";
    case Outcome::kDraw:
      return "drawn";
    case Outcome::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

// Proof and disproof numbers saturate at kInfinity: 0 and kInfinity mark a
// proven or disproved position.
constexpr uint32_t kInfinity = 1u << 30;

uint32_t SaturatingAdd(uint32_t a, uint32_t b) { return std::min(kInfinity, a + b); }

// A child's threshold past its sibling's number: 1 + epsilon of it (the
// 1 + epsilon trick: fewer returns to the parent), at least one more.
uint32_t PastSibling(uint32_t second) {
  if (second >= kInfinity) return kInfinity;
  return std::min(kInfinity, std::max(second + 1, second + second / 4));
}

// The table's key of a position searched for `attacker`: the two searches'
// numbers of one position differ.
uint64_t KeyOf(const Position& pos, Color attacker) {
  return pos.hash() ^ (attacker == kBlack ? 0 : 0x9E3779B97F4A7C14ULL);
}

// What is known of a position for one attacker.
struct Numbers {
  uint32_t pn = 1, dn = 1;
  uint16_t plies = 0;           // proven: the proof's longest line in plies
  bool path_dependent = false;  // disproved through a repetition on its path
  bool proven() const { return pn == 0; }
  bool disproved() const { return dn == 0; }
  bool final() const { return pn == 0 || dn == 0; }
};

constexpr Numbers kProven{0, kInfinity, 0, false};
constexpr Numbers kDisproved{kInfinity, 0, 0, false};

}  // namespace

// The transposition table: buckets of four entries behind striped spin
// locks; a full bucket gives up its entry of least work, final results last.
class Solver::Table {
 public:
  explicit Table(int64_t memory_mb) {
    const int64_t bytes = std::max<int64_t>(1, memory_mb) << 20;
    while (buckets_ * 2 * int64_t(sizeof(Bucket)) <= bytes) buckets_ *= 2;
    Allocate();
  }

  // Returns whether the table holds key, and if so sets numbers to what it
  // holds.
  bool Find(uint64_t key, Numbers& numbers) const {
    const Bucket& b = BucketOf(key);
    std::lock_guard<SpinLock> lock(LockOf(key));
    for (const Entry& e : b.entry)
      if (e.key == key) {
        // A disproof through a repetition holds on the path that found it only.
        numbers = e.numbers.disproved() && e.numbers.path_dependent ? Numbers{} : e.numbers;
        return true;
      }
    return false;
  }

  // What the table holds of key, or the numbers of a position not searched.
  Numbers Find(uint64_t key) const {
    Numbers n;
    Find(key, n);
    return n;
  }

  void Store(uint64_t key, const Numbers& numbers, uint32_t work) {
    Bucket& b = BucketOf(key);
    std::lock_guard<SpinLock> lock(LockOf(key));
    Entry* slot = nullptr;
    for (Entry& e : b.entry)
      if (e.key == key) slot = &e;
    // A settled position stays settled: a thread stopped early returns its
    // unfinished numbers for a position another thread proved.
    if (slot && Settled(slot->numbers) && !Settled(numbers)) return;
    if (!slot)
      for (Entry& e : b.entry)
        if (e.key == 0) {
          slot = &e;
          used_.fetch_add(1, std::memory_order_relaxed);
          break;
        }
    if (!slot) {
      auto keep = [](const Entry& e) { return uint64_t(Settled(e.numbers)) << 40 | e.work; };
      slot = &*std::min_element(std::begin(b.entry), std::end(b.entry),
                                [&](const Entry& x, const Entry& y) { return keep(x) < keep(y); });
    }
    slot->work = std::max(work, slot->key == key ? slot->work : 0);
    slot->key = key;
    slot->numbers = numbers;
  }

  // Proven, or disproved whatever the path.
  static bool Settled(const Numbers& n) { return n.proven() || (n.disproved() && !n.path_dependent); }

  void Clear() {
    Allocate();
    used_ = 0;
  }
  int64_t capacity() const { return buckets_ * kWays; }
  int64_t used() const { return used_.load(); }

 private:
  static constexpr int kWays = 4;
  static constexpr size_t kLocks = 4096;
  struct Entry {
    uint64_t key = 0;  // 0: empty
    Numbers numbers;
    uint32_t work = 0;  // positions searched below it, for replacement
  };
  struct Bucket {
    Entry entry[kWays];
  };

  const Bucket& BucketOf(uint64_t key) const { return table_.get()[(key >> 1) & (buckets_ - 1)]; }
  Bucket& BucketOf(uint64_t key) { return table_.get()[(key >> 1) & (buckets_ - 1)]; }
  SpinLock& LockOf(uint64_t key) const { return locks_[(key >> 20) % kLocks]; }

  // Zeroed memory mapped from the system, in pages of 2 MB where it has
  // them (transparent huge pages on madvise, as Stockfish maps its hash).
  // Nothing is touched before the search: a page costs its first touch. A
  // table's lookups land on random pages, and with 4 KB pages every first
  // touch is a page fault (170 ms for 64 MB on a virtual machine, against a
  // few milliseconds with 2 MB pages). An entry of key 0 is empty, whatever
  // its numbers.
  void Allocate() {
    constexpr size_t kHugePage = size_t(2) << 20;
    bytes_ = (size_t(buckets_) * sizeof(Bucket) + kHugePage - 1) / kHugePage * kHugePage;
    table_.reset();
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, bytes_, MADV_HUGEPAGE);
#endif
    table_ = std::unique_ptr<Bucket, Unmap>(static_cast<Bucket*>(p), Unmap{bytes_});
  }
  struct Unmap {
    Unmap() : bytes(0) {}
    explicit Unmap(size_t n) : bytes(n) {}
    void operator()(Bucket* b) const { munmap(b, bytes); }
    size_t bytes;
  };

  size_t bytes_ = 0;
  int64_t buckets_ = 1;
  std::unique_ptr<Bucket, Unmap> table_;
  mutable SpinLock locks_[kLocks];
  std::atomic<int64_t> used_{0};
};

namespace {

// The limits of one Solve call, checked by the searching threads themselves
// (a watcher thread would add its polling period to every call): the nodes
// at each node, the clock and the caller's stop every 1,024.
class Budget {
 public:
  Budget(const SolveLimits& limits, std::chrono::steady_clock::time_point begin) : limits_(limits), begin_(begin) {}

  // Counts a node; returns the count before it.
  int64_t Spend() {
    const int64_t n = nodes_.fetch_add(1, std::memory_order_relaxed);
    if ((limits_.nodes > 0 && n >= limits_.nodes) || ((n & 1023) == 0 && (OverTime() || Stopped())))
      spent_.store(true, std::memory_order_relaxed);
    return n;
  }
  // Whether a limit was reached.
  bool spent() const { return spent_.load(std::memory_order_relaxed); }
  int64_t nodes() const { return nodes_.load(std::memory_order_relaxed); }

 private:
  bool OverTime() const {
    return limits_.seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count() >= limits_.seconds;
  }
  bool Stopped() const { return limits_.stop && limits_.stop->load(std::memory_order_relaxed); }

  const SolveLimits& limits_;
  const std::chrono::steady_clock::time_point begin_;
  std::atomic<int64_t> nodes_{0};
  std::atomic<bool> spent_{false};
};

// One thread's df-pn for one attacker.
class Search {
 public:
  // Searches until it is done, another thread's search is (*done), or the
  // budget is spent.
  Search(Solver::Table* table, const Rules& rules, Color attacker, int thread, const std::atomic<bool>* done,
         Budget* budget)
      : table_(table), rules_(rules), attacker_(attacker), thread_(thread), done_(done), budget_(budget) {}

  // The positions of the game before the root: meeting one again is a repetition.
  void SetHistory(const std::vector<uint64_t>& hashes) {
    for (uint64_t h : hashes) ++path_[h];
  }

  // Searches pos until it is proven or disproved or stop is set.
  Numbers Run(const Position& pos) {
    Numbers n = table_->Find(KeyOf(pos, attacker_));
    while (!n.final() && !Halted()) n = Mid(pos, kInfinity - 1, kInfinity - 1);
    return n;
  }

 private:
  bool Halted() const { return done_->load(std::memory_order_relaxed) || budget_->spent(); }

  struct Child {
    Position pos;
    Numbers numbers;
  };

  // The children of pos with what is known of them: ends of the game and
  // repetitions on the path are final here, the rest from the table.
  void Expand(const Position& pos, std::vector<Child>& children) const {
    MoveList moves;
    pos.GenerateMoves(moves);
    const Color mover = pos.side_to_move();
    for (Move m : moves) {
      Child c{pos.Apply(m), {}};
      const Verdict v = UnitedVerdict(c.pos, mover, rules_.simultaneous);
      if (v.over()) {
        c.numbers = v.result == WinFor(attacker_) ? kProven : kDisproved;
        c.numbers.plies = v.result == WinFor(attacker_) ? 1 : 0;
      } else if (path_.count(c.pos.hash())) {
        c.numbers = kDisproved;
        c.numbers.path_dependent = true;
      } else if (table_->Find(KeyOf(c.pos, attacker_), c.numbers)) {
        if (c.numbers.proven()) ++c.numbers.plies;  // counted from pos
      } else {
        // A new position: the more moves its side has, the harder to refute
        // (the mobility initialisation of proof-number search in LOA).
        const uint32_t moves = uint32_t(c.pos.CountMoves());
        c.numbers = c.pos.side_to_move() == attacker_ ? Numbers{1, moves} : Numbers{moves, 1};
      }
      children.push_back(c);
    }
  }

  // The numbers of an OR position (the attacker to move) from its children's,
  // or of an AND position with the roles of pn and dn swapped.
  static Numbers Combine(const std::vector<Child>& children, bool or_node) {
    Numbers n;
    uint32_t least = kInfinity, sum = 0;
    int plies_best = or_node ? 1 << 16 : 0;
    bool all_dependent = true, any_dependent = false;
    for (const Child& c : children) {
      const uint32_t select = or_node ? c.numbers.pn : c.numbers.dn;
      const uint32_t other = or_node ? c.numbers.dn : c.numbers.pn;
      least = std::min(least, select);
      sum = SaturatingAdd(sum, other);
      if (c.numbers.proven())
        plies_best = or_node ? std::min<int>(plies_best, c.numbers.plies) : std::max<int>(plies_best, c.numbers.plies);
      if (c.numbers.disproved()) {
        any_dependent |= c.numbers.path_dependent;
        all_dependent &= c.numbers.path_dependent;
      }
    }
    n.pn = or_node ? least : sum;
    n.dn = or_node ? sum : least;
    if (n.proven()) n.plies = uint16_t(std::min(plies_best, 65535));
    // An OR position is disproved by all of its children, an AND one by any.
    if (n.disproved()) n.path_dependent = or_node ? any_dependent : all_dependent;
    return n;
  }

  // Multiple iterative deepening at pos, the attacker to move or not, until
  // its numbers reach a threshold; returns them (stored in the table too).
  Numbers Mid(const Position& pos, uint32_t th_pn, uint32_t th_dn) {
    const int64_t start = budget_->Spend();
    const bool or_node = pos.side_to_move() == attacker_;
    std::vector<Child> children;
    Expand(pos, children);
    ++path_[pos.hash()];
    Numbers n = Combine(children, or_node);
    const size_t count = children.size(), offset = size_t(thread_) * 7 % count;
    while (n.pn < th_pn && n.dn < th_dn && !Halted()) {
      // The most proving child (OR) or most disproving (AND), and the runner-up's number.
      size_t best = 0;
      uint32_t best_value = kInfinity + 1, second = kInfinity;
      for (size_t k = 0; k < count; ++k) {
        const size_t i = (k + offset) % count;  // threads break ties differently
        const uint32_t v = or_node ? children[i].numbers.pn : children[i].numbers.dn;
        if (v < best_value) {
          second = std::min(second, best_value);
          best_value = v;
          best = i;
        } else {
          second = std::min(second, v);
        }
      }
      Child& c = children[best];
      uint32_t child_pn, child_dn;
      if (or_node) {
        child_pn = std::min(th_pn, PastSibling(second));
        child_dn = th_dn >= kInfinity - 1 ? th_dn : th_dn - n.dn + c.numbers.dn;
      } else {
        child_dn = std::min(th_dn, PastSibling(second));
        child_pn = th_pn >= kInfinity - 1 ? th_pn : th_pn - n.pn + c.numbers.pn;
      }
      c.numbers = Mid(c.pos, child_pn, child_dn);
      if (c.numbers.proven()) ++c.numbers.plies;
      n = Combine(children, or_node);
    }
    if (--path_[pos.hash()] == 0) path_.erase(pos.hash());
    const int64_t work = budget_->nodes() - start;
    table_->Store(KeyOf(pos, attacker_), n, uint32_t(std::min<int64_t>(work, UINT32_MAX)));
    return n;
  }

  Solver::Table* table_;
  const Rules& rules_;
  const Color attacker_;
  const int thread_;
  const std::atomic<bool>* done_;
  Budget* budget_;
  std::unordered_map<uint64_t, int> path_;  // hashes of the positions from the game's start to here
};

// What the table says of the child of pos after m for attacker, the game's
// end included (as the search sees it, without the path's repetitions).
Numbers ChildNumbers(const Solver::Table& table, const Rules& rules, const Position& pos, Move m, Color attacker) {
  const Position child = pos.Apply(m);
  const Verdict v = UnitedVerdict(child, pos.side_to_move(), rules.simultaneous);
  if (v.over()) return v.result == WinFor(attacker) ? kProven : kDisproved;
  return table.Find(KeyOf(child, attacker));
}

// The winner's proof from pos: its main line (the attacker's shortest proving
// move, the defender's longest-lasting one) and the positions of its tree.
void ReadProof(const Solver::Table& table, const Rules& rules, const Position& root, Color attacker,
               SolveResult& result) {
  // The tree: every defence, one proving move each, each position once.
  std::unordered_set<uint64_t> seen;
  std::vector<Position> stack{root};
  constexpr int64_t kMostCounted = 20000000;
  while (!stack.empty() && int64_t(seen.size()) < kMostCounted) {
    const Position pos = stack.back();
    stack.pop_back();
    if (!seen.insert(KeyOf(pos, attacker)).second) continue;
    if (pos.IsUnited(kBlack) || pos.IsUnited(kWhite)) continue;
    MoveList moves;
    pos.GenerateMoves(moves);
    const bool or_node = pos.side_to_move() == attacker;
    Move chosen;
    int chosen_plies = 1 << 16;
    for (Move m : moves) {
      const Numbers n = ChildNumbers(table, rules, pos, m, attacker);
      if (!n.proven()) continue;
      if (!or_node) {
        stack.push_back(pos.Apply(m));
      } else if (n.plies < chosen_plies) {
        chosen = m;
        chosen_plies = n.plies;
      }
    }
    if (or_node && !chosen.is_null()) stack.push_back(pos.Apply(chosen));
  }
  result.proof_size = int64_t(seen.size());
  // The main line.
  result.line.clear();
  Position pos = root;
  for (int ply = 0; ply < 1000 && !pos.IsUnited(kBlack) && !pos.IsUnited(kWhite); ++ply) {
    MoveList moves;
    pos.GenerateMoves(moves);
    const bool or_node = pos.side_to_move() == attacker;
    Move chosen;
    int chosen_plies = or_node ? 1 << 16 : -1;
    for (Move m : moves) {
      const Numbers n = ChildNumbers(table, rules, pos, m, attacker);
      if (!n.proven()) continue;
      if (or_node ? n.plies < chosen_plies : n.plies > chosen_plies) {
        chosen = m;
        chosen_plies = n.plies;
      }
    }
    if (chosen.is_null()) break;  // no longer held by the table
    result.line.push_back(chosen);
    pos = pos.Apply(chosen);
  }
  if (!result.line.empty()) result.best_move = result.line.front();
}

}  // namespace

Solver::Solver(int64_t memory_mb) : table_(std::make_unique<Table>(memory_mb)) {}
Solver::~Solver() = default;
void Solver::Clear() { table_->Clear(); }
int64_t Solver::capacity() const { return table_->capacity(); }
int64_t Solver::used() const { return table_->used(); }

SolveResult Solver::Solve(const Game& game, const SolveLimits& limits) {
  const auto begin = std::chrono::steady_clock::now();
  SolveResult result;
  const Position root = game.position();
  const Color us = root.side_to_move();
  if (game.over()) {
    result.outcome = game.result() == Result::kDraw ? Outcome::kDraw
                     : game.result() == WinFor(us)  ? Outcome::kWin
                                                    : Outcome::kLoss;
    return result;
  }
  // The positions before the root, each as often as it occurred.
  std::vector<uint64_t> history;
  {
    Position pos = game.start();
    for (Move m : game.moves()) {
      history.push_back(pos.hash());
      pos = pos.Apply(m);
    }
  }
  Budget budget(limits, begin);
  std::atomic<bool> done{false};
  // One search for one attacker with every thread; returns the root's numbers.
  auto search = [&](Color attacker) {
    std::vector<Numbers> found(size_t(std::max(1, limits.threads)));
    done = false;
    auto work = [&](int thread) {
      Search s(table_.get(), game.rules(), attacker, thread, &done, &budget);
      s.SetHistory(history);
      found[size_t(thread)] = s.Run(root);
      done = true;  // the first to finish ends the others
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < limits.threads; ++t) helpers.emplace_back(work, t);
    work(0);
    for (auto& h : helpers) h.join();
    for (const Numbers& n : found)
      if (n.final()) return n;
    return found[0];
  };
  const int remaining = game.rules().max_plies > 0 ? game.rules().max_plies - game.ply() : 1 << 30;
  const Numbers win = search(us);
  if (win.proven() && win.plies <= remaining) {
    result.outcome = Outcome::kWin;
    result.proof_plies = win.plies;
    ReadProof(*table_, game.rules(), root, us, result);
  } else if (win.disproved() && !budget.spent()) {
    const Numbers loss = search(Opponent(us));
    if (loss.proven() && loss.plies <= remaining) {
      result.outcome = Outcome::kLoss;
      result.proof_plies = loss.plies;
      ReadProof(*table_, game.rules(), root, Opponent(us), result);
    } else if (loss.disproved() && !budget.spent()) {
      result.outcome = Outcome::kDraw;
      MoveList moves;
      root.GenerateMoves(moves);
      for (Move m : moves)
        if (ChildNumbers(*table_, game.rules(), root, m, Opponent(us)).disproved()) {
          result.best_move = m;
          break;
        }
    }
  }
  result.nodes = budget.nodes();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return result;
}

}  // namespace loa::solve
