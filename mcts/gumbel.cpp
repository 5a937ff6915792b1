#include "mcts/gumbel.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace loa {

namespace {

// The log of a prior, bounded below as mctx bounds its probabilities.
float LogPrior(float prior) { return std::log(std::max(prior, 1e-12f)); }

bool Lost(const RootChild& c) { return c.proven == Proven::kLoss; }

}  // namespace

std::vector<uint32_t> ConsideredVisits(int m, int n) {
  std::vector<uint32_t> sequence;
  if (n <= 0) return sequence;
  sequence.reserve(size_t(n));
  if (m <= 1) {
    for (int k = 0; k < n; ++k) sequence.push_back(uint32_t(k));
    return sequence;
  }
  const int log2m = int(std::ceil(std::log2(double(m))));
  std::vector<uint32_t> visits(size_t(m), 0);
  int considered = m;
  while (int(sequence.size()) < n) {
    const int extra = std::max(1, n / (log2m * considered));
    for (int e = 0; e < extra; ++e) {
      sequence.insert(sequence.end(), visits.begin(), visits.begin() + considered);
      for (int i = 0; i < considered; ++i) ++visits[size_t(i)];
    }
    considered = std::max(2, considered / 2);
  }
  sequence.resize(size_t(n));
  return sequence;
}

std::vector<float> SigmaCompletedQ(const std::vector<RootChild>& children, float raw_value,
                                   const SearchParams& params) {
  double total_visits = 0, visited_prior = 0, weighted_q = 0;
  uint32_t max_visits = 0;
  for (const RootChild& c : children) {
    total_visits += c.visits;
    max_visits = std::max(max_visits, c.visits);
    if (c.visits > 0) {
      visited_prior += std::max(c.prior, 1e-12f);
      weighted_q += std::max(c.prior, 1e-12f) * c.q;
    }
  }
  const double mixed =
      visited_prior > 0 ? (raw_value + total_visits * weighted_q / visited_prior) / (total_visits + 1) : raw_value;
  std::vector<float> q(children.size());
  float low = INFINITY, high = -INFINITY;
  for (size_t i = 0; i < children.size(); ++i) {
    const RootChild& c = children[i];
    q[i] = c.visits > 0 || c.proven != Proven::kUnknown ? c.q : float(mixed);
    low = std::min(low, q[i]);
    high = std::max(high, q[i]);
  }
  const float scale = (params.gumbel_c_visit + float(max_visits)) * params.gumbel_c_scale;
  const float range = std::max(high - low, 1e-8f);
  for (float& x : q) x = scale * (x - low) / range;
  return q;
}

std::vector<MoveProbability> GumbelPolicyTarget(const std::vector<RootChild>& children, float raw_value,
                                                const SearchParams& params) {
  const std::vector<float> sigma = SigmaCompletedQ(children, raw_value, params);
  std::vector<MoveProbability> target(children.size());
  float top = -INFINITY;
  for (size_t i = 0; i < children.size(); ++i) top = std::max(top, LogPrior(children[i].prior) + sigma[i]);
  double sum = 0;
  for (size_t i = 0; i < children.size(); ++i) {
    target[i].move = children[i].move;
    target[i].probability = std::exp(LogPrior(children[i].prior) + sigma[i] - top);
    sum += target[i].probability;
  }
  for (MoveProbability& p : target) p.probability = float(p.probability / sum);
  return target;
}

int GumbelSelect(const std::vector<RootChild>& children, const std::vector<uint32_t>& visits,
                 const std::vector<float>& gumbel, const std::vector<float>& sigma, uint32_t considered_visits) {
  assert(!children.empty() && visits.size() == children.size());
  bool all_lost = true;
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].proven == Proven::kWin) return int(i);
    all_lost = all_lost && Lost(children[i]);
  }
  int best = -1, fallback = -1;
  float best_score = -INFINITY, fallback_score = -INFINITY;
  for (size_t i = 0; i < children.size(); ++i) {
    if (Lost(children[i]) && !all_lost) continue;
    const float score = gumbel[i] + LogPrior(children[i].prior) + sigma[i];
    if (visits[i] == considered_visits && score > best_score) best = int(i), best_score = score;
    // No child at the considered count (proven children, visits in flight):
    // the least visited, then the best scored.
    if (fallback < 0 || visits[i] < visits[size_t(fallback)] ||
        (visits[i] == visits[size_t(fallback)] && score > fallback_score))
      fallback = int(i), fallback_score = score;
  }
  return best >= 0 ? best : fallback;
}

Move GumbelChooseMove(const std::vector<RootChild>& children, const std::vector<float>& gumbel, float raw_value,
                      const SearchParams& params) {
  assert(!children.empty() && gumbel.size() == children.size());
  for (const RootChild& c : children)
    if (c.proven == Proven::kWin) return ChooseBestMove(children);
  const std::vector<float> sigma = SigmaCompletedQ(children, raw_value, params);
  uint32_t most = 0;
  bool all_lost = true;
  for (const RootChild& c : children) all_lost = all_lost && Lost(c);
  if (all_lost) return ChooseBestMove(children);
  for (const RootChild& c : children)
    if (!Lost(c)) most = std::max(most, c.visits);
  int best = -1;
  float best_score = -INFINITY;
  for (size_t i = 0; i < children.size(); ++i) {
    if (Lost(children[i]) || children[i].visits != most) continue;
    const float score = gumbel[i] + LogPrior(children[i].prior) + sigma[i];
    if (best < 0 || score > best_score) best = int(i), best_score = score;
  }
  return children[size_t(best)].move;
}

}  // namespace loa
