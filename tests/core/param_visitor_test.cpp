// The one parameter declaration (core/param_visitor.h): a struct declares its
// fields once, and every reader, writer and check is a visitor over them.

#include "core/param_visitor.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/game.h"

namespace loa {
namespace {

// A struct of every field kind, declared once.
struct Sample {
  int count = 3;
  double ratio = 0.25;
  float weight = 0.2f;
  bool flag = true;
  std::string name = "x";
  std::string kind = "a";
  std::vector<std::string> items = {"p", "q"};

  void Visit(ParamVisitor& v) {
    v.Int("count", count, 1, 10, "a count");
    v.Double("ratio", ratio, 0, 1, "a ratio");
    v.Float("weight", weight, 0, 2, "a weight");
    v.Bool("flag", flag, "a flag");
    v.String("name", name, false, "a name");
    v.Choice("kind", kind, {"a", "b"}, "a kind");
    v.StringList("items", items, "some items");
  }
};

std::string ReadError(const std::map<std::string, std::string>& values) {
  Sample s;
  MapParamReader reader(values, "ctx");
  try {
    s.Visit(reader);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParamsTest, MapReaderParsesEveryKindAndKeepsAbsentKeys) {
  const std::map<std::string, std::string> values = {
      {"count", "7"}, {"ratio", "0.5"}, {"flag", "false"}, {"kind", "b"}, {"other", "1"}};
  Sample s;
  MapParamReader reader(values, "ctx");
  s.Visit(reader);
  EXPECT_EQ(s.count, 7);
  EXPECT_EQ(s.ratio, 0.5);
  EXPECT_FALSE(s.flag);
  EXPECT_EQ(s.kind, "b");
  EXPECT_EQ(s.name, "x");  // absent: the default stays
  EXPECT_EQ(s.weight, 0.2f);
  EXPECT_EQ(reader.UnknownKeys(), std::vector<std::string>{"other"});
}

TEST(ParamsTest, BadValuesNameTheKeyAndQuoteLittleOfTheInput) {
  EXPECT_EQ(ReadError({{"count", "11"}}), "ctx: count: 11 is out of range [1, 10]");
  EXPECT_EQ(ReadError({{"count", "many"}}), "ctx: count: expected an integer, got 'many'");
  EXPECT_EQ(ReadError({{"ratio", "nan"}}), "ctx: ratio: expected a number, got 'nan'");
  EXPECT_EQ(ReadError({{"flag", "maybe"}}), "ctx: flag: expected true or false, got 'maybe'");
  EXPECT_EQ(ReadError({{"kind", "c"}}), "ctx: kind: 'c' is not one of a|b");
  EXPECT_EQ(ReadError({{"name", ""}}), "ctx: name: must not be empty");
  EXPECT_EQ(ReadError({{"items", "p"}}), "ctx: items: expected a list");
  const std::string huge(100000, '9');
  EXPECT_LT(ReadError({{"count", "x" + huge}}).size(), 200u);
}

TEST(ParamsTest, RangeCheckerListerAndWriterSeeTheSameFields) {
  Sample s;
  EXPECT_NO_THROW(CheckParamRanges(s, "sample"));
  s.ratio = 2;
  try {
    CheckParamRanges(s, "sample");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "sample: ratio = 2.0 is out of range [0.0, 1.0]");
  }
  ParamLister lister;
  Sample fresh;
  fresh.Visit(lister);
  ASSERT_EQ(lister.params().size(), 7u);
  EXPECT_EQ(lister.params()[2].key, "weight");
  EXPECT_EQ(lister.params()[2].default_value, "0.2");  // the float's shortest decimal
  EXPECT_EQ(lister.params()[5].range, "a|b");
  TextParamWriter writer;
  fresh.Visit(writer);
  EXPECT_EQ(writer.text(), "count=3 ratio=0.25 weight=0.2 flag=true name=x kind=a items=p;q");
}

TEST(ParamsTest, RulesAreReadAndWrittenThroughTheirDeclaration) {
  Rules rules;
  rules.max_plies = 12;
  rules.simultaneous = Simultaneous::kMover;
  EXPECT_EQ(rules.ToString(), "simultaneous=mover start=standard size=8 max_plies=12");
  EXPECT_EQ(Rules::FromString(rules.ToString()), rules);
  EXPECT_THROW(Rules::FromString("max_plies=1 max_plies=2"), ParseError);
  EXPECT_THROW(Rules::FromString("start"), ParseError);
}

TEST(ParamsTest, KeyValueSettingsSplitAtTheirFirstEqualsSign) {
  const std::optional<KeyValue> cmd = SplitKeyValue("cmd=engine --opt=3");
  ASSERT_TRUE(cmd.has_value());
  EXPECT_EQ(cmd->key, "cmd");
  EXPECT_EQ(cmd->value, "engine --opt=3");
  EXPECT_EQ(SplitKeyValue("empty=")->value, "");
  EXPECT_FALSE(SplitKeyValue("no equals sign").has_value());
  EXPECT_FALSE(SplitKeyValue("=no key").has_value());
  const auto map = KeyValueMap({"a=1", "b=x=y"}, "rules 'a=1 b=x=y'");
  EXPECT_EQ(map, (std::map<std::string, std::string>{{"a", "1"}, {"b", "x=y"}}));
  try {
    KeyValueMap({"a=1", "b"}, "ctx");
    FAIL() << "a setting without '=' was taken";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "ctx: 'b' is not key=value");
  }
  try {
    KeyValueMap({"a=1", "a=2"}, "ctx");
    FAIL() << "a key given twice was taken";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "ctx: a is given twice");
  }
}

TEST(ParamsTest, FormatDoubleReadsBackExactly) {
  for (double d : {0.1, 1.0, 1e-8, 123456.789, 1e300}) EXPECT_EQ(std::stod(FormatDouble(d)), d) << FormatDouble(d);
  EXPECT_EQ(FormatDouble(3), "3.0");
}

}  // namespace
}  // namespace loa
