// loaz tune-eval: fits the alpha-beta baseline's evaluation weights and move
// categories to positions of its own self-play, labelled by the shipped
// net's value or by the games' results (docs/BASELINE.md, Tuning).

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "alphabeta/search.h"
#include "alphabeta/tuning.h"
#include "alphabeta/weights_file.h"
#include "app/cli.h"
#include "app/command.h"
#include "core/error.h"
#include "core/file_util.h"
#include "core/random.h"
#include "net/net_evaluator.h"
#include "play/mcts_player.h"
#include "play/player_kinds.h"
#include "play/spec.h"

namespace loa::app {
namespace {

// One position of the data set: the board, the result for its side to move
// (1 win, 0 draw, -1 loss), the move the game played there, and the game.
struct TuneRecord {
  uint64_t black, white;
  uint8_t side_to_move;
  int8_t result;
  uint16_t played;
  uint32_t game;
};
static_assert(sizeof(TuneRecord) == 24);
constexpr char kDataMagic[] = "LOAZTUNE1\n";

// The plies of a game past which it is a draw.
constexpr int kMaxGamePlies = kDefaultMaxPlies;
// Games whose index is a multiple of this are held out from the fit.
constexpr int kHoldoutEvery = 10;
constexpr int kBatch = 256;
// The evaluation's weights are integers divided by this scale.
constexpr int kWeightScale = 16;

Position PositionOf(const TuneRecord& r) { return Position(r.black, r.white, Color(r.side_to_move)); }

// Prints "\rLABEL done/total" on a terminal, every tenth on a log.
class Progress {
 public:
  Progress(std::string label, int64_t total) : label_(std::move(label)), total_(total) {}
  void Update(int64_t done) {
    static const bool terminal = isatty(STDERR_FILENO);
    const int64_t step = std::max<int64_t>(1, total_ / 10);
    if (!terminal && done % step != 0 && done != total_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(stderr, terminal ? "\r%s %lld/%lld (%.0f%%)\033[K" : "%s %lld/%lld (%.0f%%)\n", label_.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), 100.0 * double(done) / double(total_));
    if (terminal && done == total_) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  std::string label_;
  int64_t total_;
  std::mutex mutex_;
};

// Plays `games` games of the alpha-beta player `setup` against itself from
// random openings of 2 to 10 plies, on `threads` threads (one search each,
// its table 4 MB).
std::vector<TuneRecord> PlayGames(int games, const AlphaBetaSetup& setup, int threads, uint64_t seed) {
  std::vector<std::vector<TuneRecord>> per_game(games);
  std::atomic<int> next{0}, done{0};
  Progress progress("tune-eval: games", games);
  auto work = [&] {
    ab::SearchOptions options = setup.options;
    options.hash_megabytes = 4;
    options.threads = 1;
    ab::AlphaBeta search(options, setup.weights.eval, setup.weights.categories);
    const ab::SearchLimits limits = setup.limits;
    for (int g; (g = next++) < games;) {
      Rng rng(MixSeed(seed, uint64_t(g)));
      Rules rules;
      rules.max_plies = kMaxGamePlies;
      Game game(rules);
      const int opening = 2 + rng.Below(9);
      MoveList moves;
      for (int ply = 0; ply < opening && !game.over(); ++ply) {
        moves.clear();
        game.LegalMoves(moves);
        game.Play(moves[rng.Below(moves.size())]);
      }
      search.Clear();
      std::vector<TuneRecord>& records = per_game[g];
      while (!game.over()) {
        const Position& pos = game.position();
        const Move m = search.Search(game, limits).best;
        records.push_back(
            {pos.pieces(kBlack), pos.pieces(kWhite), uint8_t(pos.side_to_move()), 0, m.raw(), uint32_t(g)});
        game.Play(m);
      }
      for (TuneRecord& r : records)
        r.result = game.result() == Result::kDraw ? 0 : game.result() == WinFor(Color(r.side_to_move)) ? 1 : -1;
      progress.Update(++done);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  std::vector<TuneRecord> all;
  for (auto& records : per_game) all.insert(all.end(), records.begin(), records.end());
  return all;
}

std::vector<TuneRecord> ReadData(const std::string& path) {
  const std::string bytes = ReadFile(path, int64_t{1} << 34);
  const size_t header = sizeof(kDataMagic) - 1;
  if (bytes.compare(0, header, kDataMagic) != 0 || (bytes.size() - header) % sizeof(TuneRecord) != 0)
    throw ParseError(path + ": not a tune-eval data file (expected " + std::string(kDataMagic, header - 1) +
                     " and whole records)");
  std::vector<TuneRecord> records((bytes.size() - header) / sizeof(TuneRecord));
  std::memcpy(records.data(), bytes.data() + header, bytes.size() - header);
  for (const TuneRecord& r : records)
    if ((r.black & r.white) || r.side_to_move > 1 || r.result < -1 || r.result > 1)
      throw ParseError(path + ": a record of game " + std::to_string(r.game) + " is not a position");
  return records;
}

void WriteData(const std::string& path, const std::vector<TuneRecord>& records) {
  std::string bytes(kDataMagic, sizeof(kDataMagic) - 1);
  bytes.append(reinterpret_cast<const char*>(records.data()), records.size() * sizeof(TuneRecord));
  WriteFileAtomic(path, bytes);
}

// Returns the positions of the data file when it exists; else plays
// `games` games of `player` (its own limit, else `nodes` a move), writes
// them to the data file when one is named, and sets *played to the spec
// that played them.
std::vector<TuneRecord> ReadOrPlay(const std::string& data, const std::string& player, int64_t nodes, int games,
                                   int threads, uint64_t seed, std::string* played) {
  std::vector<TuneRecord> records;
  if (!data.empty() && std::filesystem::exists(data)) {
    records = ReadData(data);
    std::fprintf(stderr, "tune-eval: %zu positions read from %s\n", records.size(), data.c_str());
  } else {
    const PlayerSpec spec = PlayerSpec::Parse(player);
    if (spec.kind() != "ab") throw ParseError("--player '" + player + "': not an alpha-beta player (ab:...)");
    const bool own_limit = spec.Has("depth") || spec.Has("nodes") || spec.Has("time");
    const PlayerSpec limited =
        own_limit ? spec : PlayerSpec::Parse(spec.TextWith({}, "nodes=" + std::to_string(nodes)));
    *played = limited.text();
    records = PlayGames(games, ReadAlphaBetaSpec(limited), threads, seed);
    if (!data.empty()) WriteData(data, records);
  }
  if (records.empty()) throw Error("tune-eval: no positions");
  return records;
}

// A net's view of the positions: its value of each, and the move
// categories of its policy and of the moves played.
struct NetLabels {
  std::vector<float> value;
  ab::CategoryCounter net_categories, played_categories;
};

NetLabels LabelWithNet(const std::vector<TuneRecord>& records, std::string net, int threads) {
  NetLabels labels;
  labels.value.resize(records.size());
  if (net.empty()) net = DefaultNetPath();
  NetEvaluatorOptions options;
  options.inference_threads = threads;
  options.cache_entries = 0;
  const std::unique_ptr<Evaluator> evaluator = MakeNetEvaluator(net, options);
  Progress net_progress("tune-eval: net", int64_t(records.size()));
  std::vector<Position> batch;
  std::vector<EvalOutput> outputs(kBatch);
  for (size_t start = 0; start < records.size(); start += kBatch) {
    const size_t count = std::min<size_t>(kBatch, records.size() - start);
    batch.clear();
    for (size_t i = 0; i < count; ++i) batch.push_back(PositionOf(records[start + i]));
    evaluator->Evaluate(batch.data(), int(count), outputs.data());
    for (size_t i = 0; i < count; ++i) {
      const EvalOutput& o = outputs[i];
      labels.value[start + i] = o.wdl[0] + 0.5f * o.wdl[1];
      labels.net_categories.Add(batch[i], o.priors);
      MoveList moves;
      batch[i].GenerateMoves(moves);
      float played[kMaxMoves] = {};
      for (int k = 0; k < moves.size(); ++k) played[k] = moves[k].raw() == records[start + i].played;
      labels.played_categories.Add(batch[i], played);
    }
    net_progress.Update(int64_t(start + count));
  }
  return labels;
}

// Prints the fitted weights, and writes them as the defaults' sources into
// code_dir when it is named.
void PrintWeights(const ab::Weights& weights, const std::string& out, const std::string& code_dir) {
  int term = 0;
  for (const ab::EvalTerm& t : ab::kEvalTerms)
    std::printf("  %-16s %6d %6d\n", t.name, weights.eval.*t.weight, weights.eval.late[term++]);
  std::printf("  %-16s %6d\n  categories' reference %.4f\nwrote %s\n", "scale", weights.eval.scale,
              weights.categories.reference, out.c_str());
  if (!code_dir.empty()) {
    WriteFileAtomic(code_dir + "/default_weights.inc", ab::WeightsAsCode(weights, true));
    WriteFileAtomic(code_dir + "/default_categories.inc", ab::WeightsAsCode(weights, false));
    std::printf("wrote %s/default_weights.inc and default_categories.inc\n", code_dir.c_str());
  }
}

}  // namespace

int RunTuneEval(int argc, char** argv) {
  CLI::App cli{
      "Fit the alpha-beta baseline's evaluation weights (logistic regression, Texel tuning)\n"
      "and its move categories' probabilities to positions of the baseline's self-play,\n"
      "labelled by a net's value (--target net) or by the games' results (--target result);\n"
      "writes a weights file for `ab:weights=FILE` (docs/BASELINE.md, Tuning).",
      argv[0]};
  std::string net, target = "net", out, data, code_dir, player = "ab:version=1";
  int games = 20000, threads = int(std::max(1u, std::thread::hardware_concurrency())), iterations = 12;
  int64_t nodes = 500;
  uint64_t seed = 1;
  double l2 = 1e-7;
  bool flat = false;
  cli.add_option("--out", out, "the weights file to write")->required();
  cli.add_option("--net", net, "the net whose value labels the positions (default: the shipped net)");
  cli.add_option("--target", target, "what the fit predicts")
      ->check(CLI::IsMember({"net", "result"}))
      ->capture_default_str();
  cli.add_option("--games", games, "self-play games to play")->check(CLI::Range(1, 10000000))->capture_default_str();
  cli.add_option("--player", player,
                 "the alpha-beta player of the self-play (its version, switches and weights; its limit, "
                 "else --nodes)")
      ->capture_default_str();
  cli.add_option("--nodes", nodes, "nodes a move of the self-play")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  cli.add_option("--data", data, "the positions: read from this file if it exists, else played and written to it");
  cli.add_option("--threads", threads, "threads for the games and the net")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cli.add_option("--seed", seed, "seed of the openings")->capture_default_str();
  cli.add_option("--iterations", iterations, "Newton steps")->check(CLI::Range(1, 100))->capture_default_str();
  cli.add_flag("--flat", flat, "one weight a feature, not tapered from the full board to the ending");
  cli.add_option("--code", code_dir, "also write the defaults' sources into this folder (alphabeta/ ships them)");
  LOAZ_PARSE(cli, argc, argv);

  std::string played;  // the spec of the self-play player, when the positions were played here
  const std::vector<TuneRecord> records = ReadOrPlay(data, player, nodes, games, threads, seed, &played);
  const NetLabels labels = LabelWithNet(records, net, threads);
  const std::vector<float>& net_value = labels.value;

  // Features, targets and the held-out games.
  std::vector<double> rows, v1_rows;
  const int columns = ab::kNumEvalTerms * (flat ? 1 : 2);
  rows.reserve(records.size() * columns);
  std::vector<float> by_result(records.size());
  std::vector<char> holdout(records.size());
  const ab::EvalWeights v1 = ab::EvalWeights::Version1();
  for (size_t i = 0; i < records.size(); ++i) {
    const Position pos = PositionOf(records[i]);
    ab::AppendFeatureRow(pos, !flat, rows);
    v1_rows.push_back(ab::StaticScore(pos, v1));
    by_result[i] = 0.5f * float(records[i].result + 1);
    holdout[i] = records[i].game % kHoldoutEvery == 0;
  }
  const std::vector<float>& targets = target == "net" ? net_value : by_result;

  // Version 1's evaluation as a one-parameter model: its points per logit
  // set the new weights' scale, so that the search's margins keep their meaning.
  const ab::LogisticFit v1_fit = ab::FitLogistic(v1_rows, 1, targets, holdout, 0, 8);
  const double points_per_logit = 1 / v1_fit.beta[0];
  std::fprintf(stderr, "tune-eval: version 1's evaluation: %.1f points a logit\n", points_per_logit);
  const ab::LogisticFit fit =
      ab::FitLogistic(rows, columns, targets, holdout, l2, iterations, [&](int iteration, double loss) {
        std::fprintf(stderr, "tune-eval: fit step %d/%d, loss %.5f\n", iteration, iterations, loss);
      });
  ab::Weights weights;
  weights.eval = ab::WeightsFromFit(fit.beta, points_per_logit, kWeightScale);
  weights.categories = target == "net" ? labels.net_categories.Model() : labels.played_categories.Model();

  // The held-out losses: against the target, and against the results.
  const auto loss_of = [&](const std::vector<double>& r, int columns, const std::vector<double>& beta,
                           const std::vector<float>& t) {
    return ab::LogisticLoss(r, columns, beta, t, holdout, true);
  };
  size_t held = 0;
  for (char h : holdout) held += h;
  nlohmann::ordered_json fit_json = {
      {"target", target},
      {"tapered", !flat},
      {"positions", records.size()},
      {"held_out", held},
      {"games", records.back().game + 1},
      {"points_per_logit", std::round(points_per_logit * 100) / 100},
      {"held_out_loss",
       {{"version1", loss_of(v1_rows, 1, v1_fit.beta, targets)}, {"fit", loss_of(rows, columns, fit.beta, targets)}}},
      {"held_out_loss_against_results",
       {{"version1", loss_of(v1_rows, 1, v1_fit.beta, by_result)},
        {"fit", loss_of(rows, columns, fit.beta, by_result)}}}};
  // Where the positions came from: the self-play player, or the data file read.
  if (played.empty())
    fit_json["data"] = data;
  else
    fit_json["self_play_player"] = played;
  WriteFileAtomic(out, ab::WeightsFileText(weights, fit_json.dump()));
  std::printf("%s\n", fit_json.dump().c_str());
  PrintWeights(weights, out, code_dir);
  return 0;
}

}  // namespace loa::app
