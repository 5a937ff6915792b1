#include "run/config.h"

#include <filesystem>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/file_util.h"

namespace loa::run {
namespace {

// Returns the message of the Error that parsing text throws ("" if none).
template <typename E = Error>
std::string ErrorOf(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    ParseConfig(text, "configs/test.yaml", overrides);
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigTest, EmptyFileIsAnError) {
  for (const char* text : {"", "\n", "# only a comment\n", "---\n"})
    EXPECT_NE(ErrorOf<ParseError>(text).find("configs/test.yaml: empty config"), std::string::npos) << text;
}

TEST(ConfigTest, UnsetKeysTakeTheirDefaults) {
  const Config c = ParseConfig("run: {name: default}", "defaults.yaml");
  EXPECT_EQ(c.train.batch_size, TrainConfig().batch_size);
  EXPECT_EQ(c.net.blocks, Config().net.blocks);
  EXPECT_EQ(c.mcts.playouts, Config().mcts.playouts);
  EXPECT_EQ(c.RunDirectory(), "runs/default");
}

TEST(ConfigTest, ReadsEverySection) {
  const Config c = ParseConfig(R"(
run: {name: x, directory: /tmp/r, seed: 7, device: cpu}
rules: {simultaneous: mover, start: scrambled, max_plies: 200}
net: {blocks: 2, channels: 16, moves_left: false}
mcts: {playouts: 50, cheap_playouts: 10, full_search_fraction: 0.25}
selfplay: {workers: 2, games_per_worker: 8}
replay: {window: 1e4, min_samples: 100}
train: {batch_size: 64, optimizer: adamw, learning_rate: 0.001}
eval: {opponents: ["ab:depth=1"], games: 4}
)",
                               "x.yaml");
  EXPECT_EQ(c.RunDirectory(), "/tmp/r/x");
  EXPECT_EQ(c.run.seed, 7);
  EXPECT_EQ(c.mcts.seed, 7u);
  EXPECT_EQ(c.rules.simultaneous, Simultaneous::kMover);
  EXPECT_EQ(c.rules.start, StartKind::kScrambled);
  EXPECT_EQ(c.rules.max_plies, 200);
  EXPECT_EQ(c.net.channels, 16);
  EXPECT_FALSE(c.net.moves_left);
  EXPECT_FLOAT_EQ(c.mcts.full_search_fraction, 0.25f);
  EXPECT_EQ(c.replay.window, 10000);
  EXPECT_EQ(c.train.optimizer, "adamw");
  EXPECT_EQ(c.eval.opponents, std::vector<std::string>{"ab:depth=1"});
}

TEST(ConfigTest, UnknownKeyNamesKeyAndFile) {
  const std::string message = ErrorOf<ParseError>("train:\n  bach_size: 3\n");
  EXPECT_NE(message.find("configs/test.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("train.bach_size"), std::string::npos) << message;
}

TEST(ConfigTest, UnknownSectionNamesIt) {
  const std::string message = ErrorOf<ParseError>("trian:\n  batch_size: 3\n");
  EXPECT_NE(message.find("configs/test.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("'trian'"), std::string::npos) << message;
}

TEST(ConfigTest, OutOfRangeNamesKeyFileAndRange) {
  const std::string message = ErrorOf("train:\n  batch_size: 0\n");
  EXPECT_NE(message.find("configs/test.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("train.batch_size"), std::string::npos) << message;
  EXPECT_NE(message.find("out of range"), std::string::npos) << message;
  EXPECT_NE(ErrorOf("replay: {validation_share: 0.9}").find("replay.validation_share"), std::string::npos);
  EXPECT_NE(ErrorOf("train: {optimizer: adam}").find("train.optimizer"), std::string::npos);
}

TEST(ConfigTest, WrongTypeNamesKeyAndFile) {
  for (const char* text : {"train: {batch_size: lots}", "train: {batch_size: 2.5}", "train: {batch_size: [1]}",
                           "replay: {symmetries: maybe}", "train: {learning_rate: fast}"}) {
    const std::string message = ErrorOf<ParseError>(text);
    EXPECT_NE(message.find("configs/test.yaml"), std::string::npos) << text << ": " << message;
    EXPECT_NE(message.find("expected"), std::string::npos) << text << ": " << message;
  }
  EXPECT_NE(ErrorOf<ParseError>("train: {batch_size: lots}").find("train.batch_size"), std::string::npos);
}

TEST(ConfigTest, InconsistentFieldsAreErrors) {
  EXPECT_NE(ErrorOf("replay: {window: 10, min_samples: 20}").find("replay.min_samples"), std::string::npos);
  EXPECT_EQ(ErrorOf("rules: {size: 6}"), "");  // a 6x6 run (docs/RULES.md, Board sizes)
  EXPECT_NE(ErrorOf("rules: {size: 5}").find("size"), std::string::npos);
  // A cap on the train credit below one batch would stop the trainer for good.
  EXPECT_NE(ErrorOf("replay: {max_train_credit: 100}\ntrain: {batch_size: 256}").find("replay.max_train_credit (100)"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("replay: {max_train_credit: 0}\ntrain: {batch_size: 256}"), "");
  EXPECT_EQ(ErrorOf("replay: {max_train_credit: 256}\ntrain: {batch_size: 256}"), "");
  EXPECT_NE(ErrorOf("selfplay: {playouts_schedule: [{hours: 1, full: 50, cheap: 60}]}")
                .find("selfplay.playouts_schedule[0].cheap exceeds its full"),
            std::string::npos);
  // Steps come in order of hours, from above 0.
  EXPECT_EQ(ErrorOf("selfplay: {playouts_schedule: [{hours: 1}, {hours: 2, full: 640, cheap: 128}]}"), "");
  EXPECT_NE(ErrorOf("selfplay: {playouts_schedule: [{hours: 2}, {hours: 1}]}")
                .find("selfplay.playouts_schedule[1].hours (1.0) must be above 0 and above the step before it"),
            std::string::npos);
  EXPECT_NE(ErrorOf("selfplay: {playouts_schedule: [{hours: 0}]}").find("selfplay.playouts_schedule[0].hours"),
            std::string::npos);
}

TEST(ConfigTest, ThePlayoutsScheduleIsAListOfSteps) {
  const Config c = ParseConfig(
      "selfplay: {playouts_schedule: [{hours: 1.5, full: 400, cheap: 80}, {hours: 3, full: 800, cheap: 160}]}",
      "x.yaml");
  ASSERT_EQ(c.selfplay.playouts_schedule.size(), 2u);
  EXPECT_EQ(c.selfplay.playouts_schedule[0].hours, 1.5);
  EXPECT_EQ(c.selfplay.playouts_schedule[1].full, 800);
  EXPECT_EQ(c.selfplay.playouts_schedule[1].cheap, 160);
  // A step's absent fields take the defaults; an empty list is no schedule.
  EXPECT_EQ(ParseConfig("selfplay: {playouts_schedule: [{hours: 2}]}", "x.yaml").selfplay.playouts_schedule[0].full,
            PlayoutsStep().full);
  EXPECT_TRUE(ParseConfig("selfplay: {playouts_schedule: []}", "x.yaml").selfplay.playouts_schedule.empty());
  // Written and read back the same, and set whole by --set.
  EXPECT_EQ(ConfigToYaml(ParseConfig(ConfigToYaml(c), "config.yaml")), ConfigToYaml(c));
  EXPECT_NE(ConfigToYaml(c).find("playouts_schedule: [{hours: 1.5, full: 400, cheap: 80}, {hours: 3.0, full: 800, "
                                 "cheap: 160}]"),
            std::string::npos)
      << ConfigToYaml(c);
  const Config set = ParseConfig("run: {name: x}", "x.yaml", {"selfplay.playouts_schedule=[{hours: 2, full: 500}]"});
  ASSERT_EQ(set.selfplay.playouts_schedule.size(), 1u);
  EXPECT_EQ(set.selfplay.playouts_schedule[0].full, 500);
}

TEST(ConfigTest, ABadPlayoutsScheduleNamesTheStepAndTheSource) {
  struct Case {
    const char* text;
    const char* set;  // a --set, or null
    const char* message;
    bool parse_error;  // a value of the wrong type (else out of range)
  };
  const Case cases[] = {
      {"selfplay: {playouts_schedule: 3}", nullptr,
       "configs/test.yaml: selfplay.playouts_schedule: expected a list of records", true},
      {"selfplay: {playouts_schedule: [{hours: 1}, 5]}", nullptr,
       "configs/test.yaml: selfplay.playouts_schedule[1]: expected a record", true},
      {"selfplay: {playouts_schedule: [{hours: 1, fulll: 5}]}", nullptr,
       "configs/test.yaml: unknown key 'selfplay.playouts_schedule[0].fulll'", true},
      {"selfplay: {playouts_schedule: [{hours: x}]}", nullptr,
       "configs/test.yaml: selfplay.playouts_schedule[0].hours:", true},
      {"selfplay: {playouts_schedule: [{hours: 1, full: 0}]}", nullptr,
       "configs/test.yaml: selfplay.playouts_schedule[0].full:", false},
      {"run: {name: x}", "selfplay.playouts_schedule=[{hours: 1, cheap: y}]",
       "--set selfplay.playouts_schedule=[{hours: 1, cheap: y}]: selfplay.playouts_schedule[0].cheap", true},
  };
  for (const Case& c : cases) {
    std::vector<std::string> overrides;
    if (c.set) overrides.push_back(c.set);
    const std::string message = c.parse_error ? ErrorOf<ParseError>(c.text, overrides) : ErrorOf(c.text, overrides);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.text << " -> " << message;
  }
}

// Configs written before the schedule was one list still read: late_* is
// its first step and later_* its second, with the old defaults.
TEST(ConfigTest, TheScheduleOldKeysReadAsItsSteps) {
  auto schedule = [](const std::string& text, const std::vector<std::string>& overrides = {}) {
    std::string out;
    for (const PlayoutsStep& s : ParseConfig(text, "old.yaml", overrides).selfplay.playouts_schedule)
      out += FormatDouble(s.hours) + ":" + std::to_string(s.full) + "/" + std::to_string(s.cheap) + " ";
    return out;
  };
  EXPECT_EQ(schedule("selfplay: {late_hours: 1, late_playouts: 320, late_cheap_playouts: 64}"), "1.0:320/64 ");
  EXPECT_EQ(schedule("selfplay: {late_playouts: 640}"), "1.0:640/64 ");
  EXPECT_EQ(schedule("selfplay: {late_hours: 0}"), "");
  EXPECT_EQ(schedule("selfplay: {late_hours: 1, later_hours: 2}"), "1.0:320/64 2.0:640/128 ");
  EXPECT_EQ(schedule("selfplay: {later_hours: 2, later_playouts: 960, later_cheap_playouts: 96}"),
            "1.0:320/64 2.0:960/96 ");
  // Over a schedule the config already has (a base's, or the file's with --set).
  EXPECT_EQ(
      schedule("selfplay: {playouts_schedule: [{hours: 2, full: 400, cheap: 40}]}", {"selfplay.late_playouts=800"}),
      "2.0:800/40 ");
  EXPECT_EQ(schedule("selfplay: {playouts_schedule: []}", {"selfplay.later_hours=3"}), "3.0:640/128 ");
  // The old order check, now the schedule's.
  EXPECT_NE(ErrorOf("selfplay: {late_hours: 2, later_hours: 1}").find("selfplay.playouts_schedule[1].hours (1.0)"),
            std::string::npos);
  EXPECT_NE(ErrorOf<ParseError>("selfplay: {late_hours: soon}")
                .find("configs/test.yaml: selfplay.late_hours: expected "
                      "a number, got 'soon'"),
            std::string::npos);
  EXPECT_NE(ErrorOf<ParseError>("selfplay: {late_hours: 1, playouts_schedule: [{hours: 1}, {hours: 2}, {hours: 3}]}")
                .find("change a playouts_schedule of one or two steps"),
            std::string::npos);
  // An old run's config reads as the same config written anew.
  const Config old = ParseConfig("selfplay: {late_hours: 1.5, later_hours: 3}", "old.yaml");
  EXPECT_EQ(ConfigToYaml(old), ConfigToYaml(ParseConfig(ConfigToYaml(old), "config.yaml")));
  EXPECT_EQ(ConfigToYaml(old).find("late_hours"), std::string::npos);
}

TEST(ConfigTest, OverridesApplyAndAreNamedInErrors) {
  const Config c = ParseConfig("train: {batch_size: 8}", "x.yaml", {"train.batch_size=16", "eval.opponents=[a, b]"});
  EXPECT_EQ(c.train.batch_size, 16);
  EXPECT_EQ(c.eval.opponents.size(), 2u);
  const std::string message = ErrorOf("run: {name: t}", {"train.batch_size=-1"});
  EXPECT_NE(message.find("--set train.batch_size=-1"), std::string::npos) << message;
  EXPECT_NE(ErrorOf<ParseError>("run: {name: t}", {"train.nope=1"}).find("--set train.nope=1"), std::string::npos);
  EXPECT_NE(ErrorOf<ParseError>("run: {name: t}", {"nonsense"}).find("--set nonsense"), std::string::npos);
}

TEST(ConfigTest, ResolvedYamlReadsBackTheSame) {
  Config c = ParseConfig("net: {blocks: 3}\ntrain: {learning_rate: 0.0123}\neval: {opponents: []}", "x.yaml");
  const std::string yaml = ConfigToYaml(c);
  const Config back = ParseConfig(yaml, "resolved.yaml");
  EXPECT_EQ(ConfigToYaml(back), yaml);
  EXPECT_EQ(back.net.blocks, 3);
  EXPECT_DOUBLE_EQ(back.train.learning_rate, 0.0123);
  EXPECT_TRUE(back.eval.opponents.empty());
}

TEST(ConfigTest, ShippedConfigsLoad) {
  for (const char* name : {"tiny.yaml", "quick.yaml", "default.yaml", "gpu.yaml"}) {
    SCOPED_TRACE(name);
    const Config c = LoadConfig(std::string(LOAZ_SOURCE_DIR) + "/configs/" + name);
    EXPECT_EQ(ParseConfig(ConfigToYaml(c), "resolved.yaml").run.name, c.run.name);
    // The training configs carry the settings that won their A/B tests.
    if (std::string(name) != "tiny.yaml") {
      EXPECT_EQ(c.selfplay.policy_surprise_weight, 0.5);
      if (std::string(name) != "gpu.yaml") {
        EXPECT_EQ(c.net.input_features, "connection");
        EXPECT_EQ(c.net.blocks, 3);
      }
    }
  }
}

// The built-in defaults are configs/default.yaml's, key for key, so that
// `loaz config` shows what a user gets.
TEST(ConfigTest, TheDefaultsAreDefaultYamls) {
  const std::vector<ConfigSection> code = DescribeConfig(Config());
  const std::vector<ConfigSection> file =
      DescribeConfig(LoadConfig(std::string(LOAZ_SOURCE_DIR) + "/configs/default.yaml"));
  ASSERT_EQ(code.size(), file.size());
  for (size_t i = 0; i < code.size(); ++i)
    for (size_t j = 0; j < code[i].params.size(); ++j)
      EXPECT_EQ(code[i].params[j].default_value, file[i].params[j].default_value)
          << code[i].name << "." << code[i].params[j].key;
}

// A config names a base and states only what differs: quick.yaml is
// default.yaml but for its run and its evaluation.
TEST(ConfigTest, ABaseConfigUnderliesTheKeysAConfigLeavesOut) {
  const std::string dir = std::string(LOAZ_SOURCE_DIR) + "/configs/";
  const Config quick = LoadConfig(dir + "quick.yaml");
  Config expected = LoadConfig(dir + "default.yaml");
  expected.run.name = "quick";
  expected.run.device = "cpu";
  expected.run.max_hours = 0.17;
  expected.eval.games = 20;
  expected.eval.opponents = {"ab:depth=1", "ab:depth=2"};
  expected.eval.time = 0;
  EXPECT_EQ(ConfigToYaml(quick), ConfigToYaml(expected));

  // Errors name the file the key came from; a base's base is read; a
  // missing base and a cycle are errors naming the config.
  const std::string tmp = (std::filesystem::path(::testing::TempDir()) / "loaz_run_base").lexically_normal().string();
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  WriteFileAtomic(tmp + "/a.yaml", "run: {name: a, seed: 5}\ntrain: {batch_size: 0}\n");
  WriteFileAtomic(tmp + "/b.yaml", "base: a.yaml\nrun: {name: b}\n");
  WriteFileAtomic(tmp + "/c.yaml", "base: b.yaml\ntrain: {batch_size: 32}\n");
  const Config c = LoadConfig(tmp + "/c.yaml");
  EXPECT_EQ(c.run.name, "b");
  EXPECT_EQ(c.run.seed, 5);
  EXPECT_EQ(c.train.batch_size, 32);
  try {
    LoadConfig(tmp + "/b.yaml");
    ADD_FAILURE() << "batch_size 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(tmp + "/a.yaml: train.batch_size"), std::string::npos) << e.what();
  }
  WriteFileAtomic(tmp + "/d.yaml", "base: missing.yaml\n");
  WriteFileAtomic(tmp + "/e.yaml", "base: f.yaml\nrun: {name: e}\n");
  WriteFileAtomic(tmp + "/f.yaml", "base: e.yaml\n");
  for (const auto& [name, expected_error] :
       {std::pair<std::string, std::string>{"d.yaml", "d.yaml: base: " + tmp + "/missing.yaml"},
        {"e.yaml", "deep (a cycle?)"}}) {
    try {
      LoadConfig(tmp + "/" + name);
      ADD_FAILURE() << name << " loaded";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(expected_error), std::string::npos) << e.what();
    }
  }
}

TEST(ConfigTest, TheShippedNetsConfigsAreTheirRunsConfigsInTodaysKeys) {
  const std::string nets = std::string(LOAZ_SOURCE_DIR) + "/nets/";
  const Config c = LoadConfig(nets + "default.yaml");
  EXPECT_EQ(c.run.name, "h4L");
  EXPECT_EQ(c.net.ShortName(), "4x32");
  EXPECT_EQ(c.net.input_features, "connection");
  ASSERT_EQ(c.selfplay.playouts_schedule.size(), 1u);
  EXPECT_EQ(c.selfplay.playouts_schedule[0].hours, 1.0);
  EXPECT_EQ(c.selfplay.playouts_schedule[0].full, 320);
  EXPECT_EQ(c.selfplay.playouts_schedule[0].cheap, 64);
  const Config six = LoadConfig(nets + "six.yaml");
  EXPECT_EQ(six.rules.size, 6);
  EXPECT_EQ(six.net.ShortName(), "3x32");
  EXPECT_EQ(six.net.input_features, "threat");
  // Every field, as `loaz config nets/NAME.yaml` writes it: no old key.
  const auto body = [](std::string text) {  // without the comments above the first key
    while (text.rfind("#", 0) == 0) text.erase(0, text.find('\n') + 1);
    return text;
  };
  EXPECT_EQ(body(ReadFile(nets + "default.yaml")), body(ConfigToYaml(c)));
  EXPECT_EQ(body(ReadFile(nets + "six.yaml")), body(ConfigToYaml(six)));
}

TEST(ConfigTest, EveryKeyIsDescribedAndOnlyTheRulesNetAndRunPlaceAreFixed) {
  const std::vector<ConfigSection> sections = DescribeConfig();
  ASSERT_EQ(sections.size(), 9u);
  EXPECT_EQ(sections.back().name, "cluster");
  size_t keys = 0;
  for (const ConfigSection& section : sections) {
    for (const ParamInfo& p : section.params) {
      ++keys;
      EXPECT_FALSE(p.help.empty()) << section.name << "." << p.key;
      // Every described key reads back through --set with its default.
      EXPECT_NO_THROW(ParseConfig("run: {name: t}", "x.yaml", {section.name + "." + p.key + "=" + p.default_value}))
          << section.name << "." << p.key << "=" << p.default_value;
    }
  }
  EXPECT_GT(keys, 60u);
  EXPECT_FALSE(ResumeMayChange("net", "channels"));
  EXPECT_FALSE(ResumeMayChange("rules", "simultaneous"));
  EXPECT_FALSE(ResumeMayChange("run", "name"));
  EXPECT_TRUE(ResumeMayChange("train", "learning_rate"));
  EXPECT_TRUE(ResumeMayChange("mcts", "playouts"));
  EXPECT_TRUE(ResumeMayChange("cluster", "workers"));  // a relaunch may add workers
}

TEST(ConfigTest, DuplicateKeysAreErrors) {
  EXPECT_NE(ErrorOf<ParseError>("train:\n  batch_size: 8\n  batch_size: 16\n")
                .find("'train.batch_size' appears twice (line 3)"),
            std::string::npos);
  EXPECT_NE(ErrorOf<ParseError>("run: {name: a}\nrun: {name: b}\n").find("'run' appears twice"), std::string::npos);
}

TEST(ConfigTest, ASecondDocumentIsAnError) {
  EXPECT_NE(ErrorOf<ParseError>("run: {name: a}\n---\nrun: {name: b}\n").find("2 YAML documents"), std::string::npos);
  EXPECT_NE(ErrorOf<ParseError>("run: {name: a}\n---\n---\n---\n").find("3 or more YAML documents"), std::string::npos);
}

// A token that makes no node (a lone ',') made yaml-cpp 0.7's LoadAll loop
// forever, allocating (found by tests/fuzz/fuzz_config; its input is in
// tests/fuzz/regressions/config/): each is one error now.
TEST(ConfigTest, AStrayTokenIsAnErrorNotAHang) {
  for (const char* text : {",", " ,a", "\n  ,batchpsize: ;2", "run: {name: a}\n,\n"})
    EXPECT_NE(ErrorOf<ParseError>(text).find("test.yaml: "), std::string::npos) << text;
}

// An alias to a map inside itself made the duplicate-key check recurse
// until the stack overflowed (found by tests/fuzz/fuzz_config; its input is
// in tests/fuzz/regressions/config/): one error naming the file now, and a
// list that holds itself is an error of its key.
TEST(ConfigTest, AMapThatHoldsItselfIsAnErrorNotACrash) {
  for (const char* text : {"  &00\nkes: *00\n", "run: &a {name: t, x: *a}\n", "&r {run: *r}\n"}) {
    const std::string message = ErrorOf<ParseError>(text);
    EXPECT_NE(message.find("test.yaml: "), std::string::npos) << text << ": " << message;
    EXPECT_NE(message.find("nests maps more than 8 deep"), std::string::npos) << text << ": " << message;
  }
  EXPECT_NE(ErrorOf("eval: {opponents: &l [ab, *l]}").find("eval.opponents"), std::string::npos);
}

TEST(ConfigTest, RunNamesArePlainNames) {
  for (const char* name : {"../escape", "a/b", "..", ".", "/abs"}) {
    const std::string message = ErrorOf(std::string("run: {name: ") + name + "}");
    EXPECT_NE(message.find("is not a plain name"), std::string::npos) << name << ": " << message;
  }
  EXPECT_NE(ErrorOf("run: {name: t}", {"run.name=../x"}).find("is not a plain name"), std::string::npos);
  EXPECT_EQ(ErrorOf("run: {name: my-run_2.b}"), "");
}

}  // namespace
}  // namespace loa::run
