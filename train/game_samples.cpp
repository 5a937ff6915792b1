#include "train/game_samples.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace loa::train {

bool WouldResign(const SelfPlayGame& g, double threshold, int consecutive) {
  const int n = int(g.moves.size());
  if (threshold <= -1 || n < 2 * consecutive - 1) return false;
  for (int k = 0; k < consecutive; ++k)
    if (g.moves[size_t(n - 1 - 2 * k)].root_value >= threshold) return false;
  return true;
}

GameOutcome OutcomeOf(const SelfPlayGame& g) {
  GameOutcome o;
  if (g.game.over()) {
    o.result = g.game.result();
    o.capped = g.game.reason() == Reason::kCap;
    return o;
  }
  assert(!g.moves.empty());
  o.resigned = true;
  o.result = WinFor(Opponent(g.moves.back().position.side_to_move()));
  return o;
}

namespace {

bool IsSample(const SearchedMove& m) { return m.full_search && !m.policy.empty() && !m.move.is_pass(); }

}  // namespace

std::vector<int8_t> ProveSamples(const SelfPlayGame& g, solve::Solver* solver, int64_t nodes, int give_up) {
  const int plies = int(g.moves.size());
  std::vector<int8_t> proven(size_t(plies), kUnproven);
  Game game = g.game;
  assert(game.ply() == plies);
  solve::SolveLimits limits;
  limits.nodes = nodes;
  int misses = 0;
  for (int ply = plies - 1; ply >= 0 && misses < give_up; --ply) {
    game.Undo();
    if (!IsSample(g.moves[size_t(ply)])) continue;
    switch (solver->Solve(game, limits).outcome) {
      case solve::Outcome::kWin:
        proven[size_t(ply)] = 1;
        break;
      case solve::Outcome::kLoss:
        proven[size_t(ply)] = -1;
        break;
      case solve::Outcome::kDraw:
        proven[size_t(ply)] = 0;
        break;
      case solve::Outcome::kUnknown:
        ++misses;
        continue;
    }
    misses = 0;
  }
  return proven;
}

std::vector<int8_t> RootProofs(const SelfPlayGame& g) {
  std::vector<int8_t> proven(g.moves.size(), kUnproven);
  for (size_t ply = 0; ply < g.moves.size(); ++ply) {
    const SearchedMove& m = g.moves[ply];
    if (!IsSample(m)) continue;
    if (m.proven == Proven::kWin) proven[ply] = 1;
    if (m.proven == Proven::kLoss) proven[ply] = -1;
  }
  return proven;
}

void MergeProofs(const std::vector<int8_t>& more, std::vector<int8_t>* proven) {
  assert(more.size() == proven->size());
  for (size_t i = 0; i < more.size(); ++i)
    if ((*proven)[i] == kUnproven) (*proven)[i] = more[i];
}

int AppendGame(const SelfPlayGame& g, const GameOutcome& outcome, Shard* shard, double surprise_share, Rng* rng,
               const std::vector<int8_t>* proven) {
  assert(surprise_share <= 0 || rng);
  // Games read from an older shard (no final boards) keep unknown ones.
  shard->finals.resize(size_t(shard->games));
  const int game_index = shard->games++;
  const Position& last = g.game.position();
  shard->finals.push_back({last.pieces(kBlack), last.pieces(kWhite)});
  const int plies = int(g.moves.size());
  double mean_surprise = 0;
  int samples = 0;
  for (const SearchedMove& m : g.moves)
    if (IsSample(m)) mean_surprise += m.surprise, ++samples;
  if (samples > 0) mean_surprise /= samples;
  const bool weighted = surprise_share > 0 && mean_surprise > 1e-9;
  int added = 0;
  for (int ply = 0; ply < plies; ++ply) {
    const SearchedMove& m = g.moves[size_t(ply)];
    if (!IsSample(m)) continue;
    int copies = 1;
    if (weighted) {
      const double weight = (1 - surprise_share) + surprise_share * m.surprise / mean_surprise;
      copies = int(weight);
      copies += rng->Uniform() < weight - copies;
    }
    if (copies == 0) continue;
    const Color side = m.position.side_to_move();
    Sample s;
    s.black = m.position.pieces(kBlack);
    s.white = m.position.pieces(kWhite);
    s.side_to_move = uint8_t(side);
    s.flags = kFullSearch | (outcome.capped ? kGameCapped : 0) | (outcome.resigned ? kGameResigned : 0) |
              SizeFlags(m.position.size());
    s.outcome = outcome.result == Result::kDraw ? 0 : outcome.result == WinFor(side) ? 1 : -1;
    if (proven && (*proven)[size_t(ply)] != kUnproven) {
      s.outcome = (*proven)[size_t(ply)];
      s.flags |= kProven;
    }
    s.root_value = std::clamp(m.root_value, -1.0f, 1.0f);
    s.plies_left = uint16_t(std::min(plies - ply, 65535));
    s.game = uint16_t(game_index);
    s.ply = uint32_t(ply);
    if (ply + 1 < plies && !g.moves[size_t(ply + 1)].move.is_pass())
      s.reply = uint16_t(g.moves[size_t(ply + 1)].move.PolicyIndex());
    std::vector<std::pair<int, float>> target;
    for (const MoveProbability& p : m.policy)
      if (!p.move.is_pass()) target.emplace_back(p.move.PolicyIndex(), p.probability);
    for (int k = 0; k < copies; ++k) shard->Add(s, target);
    added += copies;
  }
  for (const TreeProof& t : g.tree_proofs) {
    const Position& pos = t.proof.position;
    Sample s;
    s.black = pos.pieces(kBlack);
    s.white = pos.pieces(kWhite);
    s.side_to_move = uint8_t(pos.side_to_move());
    s.flags = kProven | kTreeProof | SizeFlags(pos.size());
    s.outcome = t.proof.result == Proven::kWin ? 1 : -1;
    s.root_value = float(s.outcome);
    s.plies_left = uint16_t(std::min(t.proof.plies, 65535));
    s.game = uint16_t(game_index);
    s.ply = uint32_t(t.ply);
    shard->Add(s, {});
    ++added;
  }
  return added;
}

}  // namespace loa::train
