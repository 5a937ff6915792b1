// The players and their specs.

#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <set>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>

#include "core/error.h"
#include "core/notation.h"
#include "net/export.h"
#include "play/mcts_player.h"
#include "play/player.h"
#include "play/player_kinds.h"
#include "solve/dfpn.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

// Returns the message of the ParseError that MakePlayer(spec) throws.
std::string SpecError(const std::string& spec) {
  try {
    MakePlayer(spec);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

// `loaz config` lists each kind's keys from the declarations its factory
// reads: a listed key is accepted, and self-play's keys are not listed.
TEST(PlayersTest, EachKindListsExactlyTheKeysItReads) {
  std::map<std::string, std::set<std::string>> listed;
  for (const PlayerKind& kind : DescribePlayerKinds())
    for (const ParamInfo& p : kind.keys) listed[kind.kind].insert(p.key);
  EXPECT_EQ(listed["ab"],
            (std::set<std::string>{
                "version",    "depth",         "nodes",           "time",     "hash",       "threads",
                "weights",    "rps",           "quiescence",      "etc",      "multi_cut",  "relative_history",
                "null_move",  "lmr",           "log_lmr",         "lmp",      "lmp_depth",  "lmp_base",
                "qthreats",   "adaptive_null", "iteration_start", "futility", "aspiration", "iir",
                "threat_ext", "history_lmr",   "deepest_thread",  "abdada"}));
  EXPECT_EQ(listed["random"], (std::set<std::string>{"seed"}));
  EXPECT_TRUE(listed["rollout"].count("sims") && !listed["rollout"].count("playouts"));
  EXPECT_TRUE(listed["mcts"].count("playouts") && listed["mcts"].count("precision") && listed["mcts"].count("net"));
  for (const char* selfplay : {"dirichlet_alpha", "temperature_start", "full_search_fraction", "root"})
    EXPECT_FALSE(listed["mcts"].count(selfplay)) << selfplay;
  // Every listed key of these kinds is read: a spec with it set is built.
  EXPECT_NO_THROW(MakePlayer("ab:depth=2,nodes=100,time=0.5,hash=4"));
  EXPECT_NO_THROW(MakePlayer("greedy:seed=3"));
  EXPECT_NO_THROW(MakePlayer("rollout:sims=10,rollouts=2,seed=4,cpuct_init=2,threads=1,leaves_per_batch=1"));
}

TEST(PlayersTest, TheKindTableSaysWhatLimitsEachSearch) {
  // Every tree search is bounded alike by its callers: the table says which.
  for (const PlayerKind& kind : DescribePlayerKinds())
    EXPECT_EQ(kind.limits.tree, kind.kind == "mcts" || kind.kind == "rollout") << kind.kind;
  EXPECT_TRUE(LimitsOf(PlayerSpec::Parse("rollout:sims=64")).tree);
  EXPECT_FALSE(LimitsOf(PlayerSpec::Parse("ab:depth=2")).tree);
  EXPECT_THROW(LimitsOf(PlayerSpec::Parse("nosuch:x=1")), ParseError);
  // A request's limit replaces the spec's own, by the kind's keys.
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("mcts:net=x,time=1"), 0, 300).text(), "mcts:net=x,playouts=300");
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("mcts:net=x,playouts=9"), 0.5, 0).text(), "mcts:net=x,time=0.5");
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("ab:depth=3,hash=8"), 2, 0).text(), "ab:hash=8,time=2.0");
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("ab:depth=3"), 0, 500).text(),
            "ab:time=1.0");  // no count a request may set
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("rollout:sims=64,seed=2"), 0, 200).text(), "rollout:seed=2,sims=200");
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("rollout:sims=64"), 3, 0).text(), "rollout:sims=1000");  // no time key
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("random:seed=4"), 1, 10).text(), "random:seed=4");
  EXPECT_EQ(SpecWithLimit(PlayerSpec::Parse("mcts:playouts=9"), 0, 0).text(), "mcts:playouts=9");
  EXPECT_EQ(SpecWithoutLimit(PlayerSpec::Parse("mcts:net=x,time=1,threads=2")), "mcts:net=x,threads=2");
  EXPECT_EQ(SpecWithoutLimit(PlayerSpec::Parse("ab:depth=2,nodes=5,time=1,hash=4")), "ab:hash=4");
}

TEST(PlayerSpecTest, WithBuildsTheSpecItsTextParsesTo) {
  const PlayerSpec spec = PlayerSpec::Parse("gtp:time=1,threads=2,cmd=engine --x=1,y");
  const PlayerSpec limited = spec.With({"time"}, "nodes", "50");
  EXPECT_EQ(limited.text(), "gtp:threads=2,nodes=50,cmd=engine --x=1,y");
  EXPECT_EQ(limited.text(), spec.TextWith({"time"}, "nodes=50"));
  EXPECT_EQ(limited.GetInt("nodes", 0, 0, 100), 50);
  EXPECT_EQ(limited.GetString("cmd", ""), "engine --x=1,y");
  EXPECT_FALSE(limited.Has("time"));
  // A key given anew replaces its old value, last of the pairs before cmd.
  EXPECT_EQ(PlayerSpec::Parse("ab:depth=3,hash=8").With({}, "depth", "5").text(), "ab:hash=8,depth=5");
  EXPECT_EQ(PlayerSpec::Parse("random").With({}).text(), "random");
}

TEST(PlayerSpecTest, TextWithDropsAndAddsPairsAndKeepsCmdWhole) {
  const PlayerSpec spec = PlayerSpec::Parse("mcts:net=a.safetensors,time=1,threads=2");
  EXPECT_EQ(spec.TextWith({"time"}), "mcts:net=a.safetensors,threads=2");
  EXPECT_EQ(spec.TextWith({"time", "playouts"}, "playouts=50"), "mcts:net=a.safetensors,threads=2,playouts=50");
  EXPECT_EQ(PlayerSpec::Parse("ab").TextWith({"time"}, "time=0.5"), "ab:time=0.5");
  // A cmd= value with commas and '=' stays whole, and last.
  const PlayerSpec gtp = PlayerSpec::Parse("gtp:name=x,cmd=./engine --opt a=1,b=2");
  EXPECT_EQ(gtp.TextWith({"name"}, "time=1"), "gtp:time=1,cmd=./engine --opt a=1,b=2");
}

TEST(PlayerSpecTest, BadSpecsNameThePartTheyCannotRead) {
  EXPECT_NE(SpecError("alphabeta:depth=3").find("unknown kind 'alphabeta'"), std::string::npos);
  EXPECT_NE(SpecError("ab:depth=three").find("depth: expected an integer, got 'three'"), std::string::npos);
  EXPECT_NE(SpecError("ab:depth=0").find("depth: 0 is out of range"), std::string::npos);
  EXPECT_NE(SpecError("ab:deep=3").find("unknown option 'deep'"), std::string::npos);
  EXPECT_NE(SpecError("random:seed").find("'seed' is not key=value"), std::string::npos);
  EXPECT_NE(SpecError("rollout:sims=-5").find("sims: -5 is out of range"), std::string::npos);
  EXPECT_NE(SpecError("greedy:depth=2").find("unknown option 'depth' for greedy"), std::string::npos);
  EXPECT_NE(SpecError("gtp").find("gtp needs cmd=COMMAND"), std::string::npos);
  EXPECT_NE(SpecError("ab:time=fast").find("time: expected a number, got 'fast'"), std::string::npos);
}

TEST(PlayerSpecTest, ACheckReadsEverySpecAsItsFactoryDoesWithoutBuildingIt) {
  // The same errors as building, for every kind.
  for (const char* bad :
       {"alphabeta:depth=3", "ab:depth=0", "ab:deep=3", "random:seed", "rollout:sims=-5", "greedy:depth=2", "gtp",
        "uci:timeout=1", "mcts:evaluator=uniform,playouts=0", "mcts:evaluator=uniform,net=x.safetensors"}) {
    std::string built, checked;
    try {
      MakePlayer(bad);
    } catch (const Error& e) {
      built = e.what();
    }
    try {
      CheckPlayerSpec(bad);
    } catch (const Error& e) {
      checked = e.what();
    }
    EXPECT_FALSE(checked.empty()) << bad;
    EXPECT_EQ(checked, built) << bad;
  }
  // Nothing is built: an engine that would fail to start, and a net file
  // that is no net, pass; a net that is no file does not.
  const std::string not_a_net = "/tmp/loaz_players_test_not_a_net_" + std::to_string(getpid()) + ".safetensors";
  FILE* f = std::fopen(not_a_net.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("not a net", f);
  std::fclose(f);
  EXPECT_NO_THROW(CheckPlayerSpec("gtp:cmd=/nonexistent/engine"));
  EXPECT_NO_THROW(CheckPlayerSpec("uci:cmd=/nonexistent/engine"));
  EXPECT_NO_THROW(CheckPlayerSpec("mcts:net=" + not_a_net + ",playouts=10"));
  EXPECT_THROW(MakePlayer("mcts:net=" + not_a_net + ",playouts=10"), Error);
  EXPECT_THROW(CheckPlayerSpec("mcts:net=/nonexistent/net.safetensors"), ParseError);
  std::remove(not_a_net.c_str());
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { old_ ? (void)::setenv(name_, old_->c_str(), 1) : (void)::unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(PlayersTest, TheSolverProbePlaysAProvenWin) {
  // A win in 5 with 10 pieces on the board: the probe's ground (probe_pieces=10).
  const Game game(Rules(), Position::FromString("7w/8/1w2w3/2b5/8/3b1b2/6w1/2bw2b1 b"));
  const std::unique_ptr<Player> probe = MakePlayer("mcts:evaluator=uniform,playouts=8,probe_nodes=200000");
  const Move move = probe->ChooseMove(game, Clock());
  EXPECT_NE(probe->LastMoveInfo().find("proven win in"), std::string::npos) << probe->LastMoveInfo();
  Game after = game;
  after.Play(move);
  solve::Solver solver(16);
  EXPECT_EQ(solver.Solve(after, solve::SolveLimits()).outcome, solve::Outcome::kLoss) << FormatMove(move);
  // Above the piece bound, and without a last value, it does not probe: the search plays.
  const std::unique_ptr<Player> bounded =
      MakePlayer("mcts:evaluator=uniform,playouts=8,probe_nodes=200000,probe_pieces=9");
  bounded->ChooseMove(game, Clock());
  EXPECT_EQ(bounded->LastMoveInfo().find("proven win in"), std::string::npos) << bounded->LastMoveInfo();
  EXPECT_THROW(MakePlayer("mcts:evaluator=uniform,probe_nodes=-1"), ParseError);
}

TEST(PlayersTest, AnMctsPlayerWithoutANetSearchesTheDefaultNet) {
  const std::string path = ::testing::TempDir() + "loaz_default_net_" + std::to_string(::getpid()) + ".safetensors";
  {
    ScopedEnv env("LOAZ_NET", path + ".missing");
    EXPECT_EQ(DefaultNetPath(), path + ".missing");
    try {
      MakePlayer("mcts:playouts=8");
      ADD_FAILURE() << "a missing default net was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ".missing"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("LOAZ_NET"), std::string::npos) << e.what();
    }
  }
  // Self-play's keys change nothing in the engine: a spec refuses them
  // rather than ignore them, as rollout: refuses playouts= (sims= is its
  // budget).
  for (const char* spec : {"mcts:evaluator=uniform,root=gumbel", "mcts:evaluator=uniform,dirichlet_alpha=0.1",
                           "mcts:evaluator=uniform,temperature_start=1", "mcts:evaluator=uniform,cheap_playouts=4",
                           "rollout:playouts=50"}) {
    try {
      MakePlayer(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("unknown"), std::string::npos) << e.what();
    }
  }
  WriteExport(path, testing::RandomExport(testing::SmallConfig(1, 8, 1, true), 7));
  ScopedEnv env("LOAZ_NET", path);
  auto player = MakePlayer("mcts:playouts=8");
  Game game;
  const Move m = player->ChooseMove(game, Clock());
  EXPECT_TRUE(game.position().IsLegal(m)) << FormatMove(m);
  // The engine's default player is a timed search of the default net.
  const std::string engine = DefaultEngineSpec();
  EXPECT_TRUE(engine == "mcts:time=1,threads=1" || engine == "mcts:time=1,threads=2") << engine;
  EXPECT_EQ(MakePlayer(engine)->name(), engine);
  std::remove(path.c_str());
}

TEST(PlayersTest, WithoutANetEachBoardIsPlayedByItsShippedNet) {
  namespace fs = std::filesystem;
  const fs::path nets = fs::path(::testing::TempDir()) / ("loaz_nets_" + std::to_string(::getpid()));
  fs::create_directories(nets);
  ExportedNet six = testing::RandomExport(testing::SmallConfig(1, 8, 1, true), 11);
  six.rules = Rules::FromString("size=6").ToString();
  WriteExport((nets / "six.safetensors").string(), six);
  ScopedEnv no_net("LOAZ_NET", "");
  ScopedEnv shipped("LOAZ_NETS", nets.string());
  EXPECT_EQ(ShippedNetPath(6), (nets / "six.safetensors").string());
  EXPECT_EQ(ShippedNetPath(7), "");
  auto play_a_move = [](Player& player, int size) {
    const Rules rules = Rules::FromString("size=" + std::to_string(size));
    Game game(rules, rules.StartPosition());
    player.NewGame();
    const Move m = player.ChooseMove(game, Clock());
    EXPECT_TRUE(game.position().IsLegal(m)) << size << "x" << size << ": " << FormatMove(m);
  };
  {
    // The 6x6 net alone: 6x6 is played, 8x8 and 7x7 are not.
    const std::unique_ptr<Player> player = MakePlayer("mcts:playouts=8");
    EXPECT_TRUE(player->PlaysBoardSize(6));
    EXPECT_FALSE(player->PlaysBoardSize(8));
    EXPECT_FALSE(player->PlaysBoardSize(7));
    play_a_move(*player, 6);
  }
  // With the 8x8 net beside it, one player plays both boards, one game after another.
  WriteExport((nets / "default.safetensors").string(), testing::RandomExport(testing::SmallConfig(1, 8, 1, true), 12));
  const std::unique_ptr<Player> player = MakePlayer("mcts:playouts=8");
  EXPECT_TRUE(player->PlaysBoardSize(6) && player->PlaysBoardSize(8));
  EXPECT_FALSE(player->PlaysBoardSize(7));
  play_a_move(*player, 8);
  play_a_move(*player, 6);
  play_a_move(*player, 8);
  // $LOAZ_NET names one net for every board: its own.
  {
    ScopedEnv one_net("LOAZ_NET", (nets / "six.safetensors").string());
    const std::unique_ptr<Player> six_only = MakePlayer("mcts:playouts=8");
    EXPECT_TRUE(six_only->PlaysBoardSize(6));
    EXPECT_FALSE(six_only->PlaysBoardSize(8));
  }
  // A shipped net filed under another board's name is refused, naming it.
  fs::copy_file(nets / "six.safetensors", nets / "default.safetensors", fs::copy_options::overwrite_existing);
  try {
    MakePlayer("mcts:playouts=8");
    ADD_FAILURE() << "a 6x6 net was taken as the 8x8 board's";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("default.safetensors"), std::string::npos) << e.what();
  }
  // No shipped net at all: one error naming the 8x8 net and LOAZ_NET.
  fs::remove_all(nets);
  try {
    MakePlayer("mcts:playouts=8");
    ADD_FAILURE() << "a player without any net was made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("default.safetensors"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("LOAZ_NET"), std::string::npos) << e.what();
  }
}

TEST(PlayersTest, AlphaBetaVersionsAndSwitches) {
  EXPECT_EQ(AlphaBetaVersion("ab:time=0.1"), ab::kLatestVersion);
  EXPECT_EQ(AlphaBetaVersion("ab:version=1,time=0.1"), 1);
  EXPECT_EQ(AlphaBetaVersion("ab:version=2"), 2);
  // Version 2 stays as it was measured: no late-move pruning; 3 has it.
  EXPECT_FALSE(ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=2")).options.late_move_pruning);
  EXPECT_TRUE(ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=3")).options.late_move_pruning);
  EXPECT_TRUE(ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=2,lmp=true")).options.late_move_pruning);
  // Version 3 keeps version 2's evaluation; 4 has the square classes.
  EXPECT_EQ(ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=3")).weights.eval.square_a1, 0);
  EXPECT_EQ(ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=3")).weights.eval.walls, ab::EvalWeights::Version(2).walls);
  EXPECT_NE(ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=4")).weights.eval.square_a1, 0);
  // Version 4 plays without version 5's reductions; 5 has them.
  const AlphaBetaSetup v4 = ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=4"));
  EXPECT_FALSE(v4.options.internal_reduction || v4.options.history_reductions || v4.options.adaptive_null_move);
  const AlphaBetaSetup v5 = ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=5"));
  EXPECT_TRUE(v5.options.internal_reduction && v5.options.history_reductions && v5.options.adaptive_null_move);
  EXPECT_FALSE(v5.options.threat_extension);
  EXPECT_EQ(AlphaBetaVersion("greedy"), 0);
  const AlphaBetaSetup v1 = ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=1"));
  EXPECT_FALSE(v1.options.realization_probability);
  EXPECT_FALSE(v1.options.quiescence);
  EXPECT_EQ(v1.weights.eval.walls, ab::EvalWeights::Version1().walls);
  EXPECT_FALSE(v1.weights.eval.tapered);
  // A switch overrides the version's choice; threads reach the search.
  const AlphaBetaSetup v1q = ReadAlphaBetaSpec(PlayerSpec::Parse("ab:version=1,quiescence=true,threads=2"));
  EXPECT_TRUE(v1q.options.quiescence);
  EXPECT_EQ(v1q.options.threads, 2);
  const AlphaBetaSetup v2 = ReadAlphaBetaSpec(PlayerSpec::Parse("ab:etc=false"));
  EXPECT_FALSE(v2.options.enhanced_transposition_cutoffs);
  EXPECT_TRUE(v2.options.multi_cut);
  EXPECT_NE(SpecError("ab:version=6").find("version: 6 is out of range"), std::string::npos);
  EXPECT_NE(SpecError("ab:weights=/nonexistent/w.json").find("/nonexistent/w.json"), std::string::npos);
}

TEST(PlayersTest, NamesAreTheirSpecs) {
  EXPECT_EQ(MakePlayer("ab:depth=2")->name(), "ab:depth=2");
  EXPECT_EQ(MakePlayer("random:seed=4")->name(), "random:seed=4");
}

TEST(PlayersTest, EveryPlayerPlaysLegalMovesToTheEnd) {
  for (const char* spec : {"random", "greedy", "ab:depth=2", "ab:nodes=300", "rollout:sims=30"}) {
    SCOPED_TRACE(spec);
    auto player = MakePlayer(spec);
    Rules rules;
    rules.max_plies = 120;
    Game game(rules);
    player->NewGame();
    player->SetSeed(3);
    while (!game.over()) {
      const Move m = player->ChooseMove(game, Clock());
      ASSERT_TRUE(game.position().IsLegal(m)) << game.position().ToString();
      game.Play(m);
    }
  }
}

TEST(PlayersTest, SeedsMakeRandomPlayersRepeatable) {
  auto a = MakePlayer("random:seed=9"), b = MakePlayer("random:seed=9"), c = MakePlayer("random:seed=10");
  const Game game;
  a->SetSeed(1);
  b->SetSeed(1);
  c->SetSeed(1);
  int differ = 0;
  for (int i = 0; i < 20; ++i) {
    const Move x = a->ChooseMove(game, Clock());
    EXPECT_EQ(x, b->ChooseMove(game, Clock()));
    differ += x != c->ChooseMove(game, Clock());
  }
  EXPECT_GT(differ, 0);
}

TEST(PlayersTest, EveryPlayerButRandomTakesAnImmediateWin) {
  // Black wins with f8-f5 and with no other move.
  const Game game(Rules(), Position::FromString("5b2/6w1/8/8/5b2/4wwbb/1w2w3/w7 b"));
  const Move win = ParseMove("f8-f5", game.position());
  for (const char* spec : {"greedy", "ab:depth=1", "ab:nodes=50", "rollout:sims=20"})
    EXPECT_EQ(MakePlayer(spec)->ChooseMove(game, Clock()), win) << spec;
}

TEST(PlayersTest, RolloutFindsAForcedWinInTwo) {
  // White wins in two moves whatever black does (checked by the alpha-beta tests).
  const Position pos = Position::FromString("b4w2/b3w3/w1wb4/2w1wb2/1w1wb3/1b6/2w1b1b1/8 w");
  Game game(Rules(), pos);
  auto rollout = MakePlayer("rollout:sims=3000");
  auto defender = MakePlayer("ab:depth=3");
  for (int ply = 0; ply < 3 && !game.over(); ++ply)
    game.Play((ply % 2 == 0 ? rollout : defender)->ChooseMove(game, Clock()));
  EXPECT_EQ(game.result(), Result::kWhiteWins);
}

TEST(PlayersTest, SearchersDescribeTheirLastMove) {
  const Game game;
  auto mcts = MakePlayer("mcts:evaluator=uniform,playouts=64");
  const Move move = mcts->ChooseMove(game, Clock());
  const std::string info = mcts->LastMoveInfo();
  // The search may stop early once the best move cannot change.
  int playouts = 0;
  ASSERT_EQ(std::sscanf(info.c_str(), "playouts %d value", &playouts), 1) << info;
  EXPECT_GT(playouts, 0);
  EXPECT_LE(playouts, 64);
  EXPECT_NE(info.find(" value "), std::string::npos) << info;
  EXPECT_NE(info.find(" pv " + FormatMove(move)), std::string::npos) << info;
  // A position one move from a win is proven (the solver is on by default).
  const Game won(Rules(), Position::FromString("5b2/6w1/8/8/5b2/4wwbb/1w2w3/w7 b"));
  auto solver = MakePlayer("mcts:evaluator=uniform,playouts=200");
  EXPECT_EQ(solver->ChooseMove(won, Clock()), ParseMove("f8-f5", won.position()));
  EXPECT_NE(solver->LastMoveInfo().find("proven win in 1"), std::string::npos) << solver->LastMoveInfo();
  auto ab = MakePlayer("ab:depth=2");
  ab->ChooseMove(game, Clock());
  EXPECT_EQ(ab->LastMoveInfo().rfind("depth 2 score ", 0), 0u) << ab->LastMoveInfo();
}

TEST(PlayersTest, AlphaBetaUnderAClockStillMoves) {
  Clock clock;
  clock.main_seconds = 0.3;
  const Game game;
  EXPECT_TRUE(game.position().IsLegal(MakePlayer("ab")->ChooseMove(game, clock)));
}

}  // namespace
}  // namespace loa
