// poputil's options layer (OptionSpec / OptionHandler), the shared suggestions and the shape and
// tensor describer every library's messages use.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/Describe.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/Suggest.hpp>

#include "ErrorMatchers.hpp"

using poplar::invalid_option;
using poputil::OptionHandler;
using poputil::OptionSpec;
using testerrors::throwsWithMessage;

namespace {

enum class Colour { RED, GREEN, BLUE };

/// One option of every kind, read into plain fields.
struct Reader {
  bool flag = false;
  unsigned count = 7;
  unsigned threads = 1;
  double proportion = 0.6;
  std::string text = "unset";
  std::string method = "auto";
  Colour colour = Colour::RED;

  OptionSpec spec() {
    return OptionSpec(
        "test::reader",
        {{"flag", OptionHandler::createWithBool(flag)},
         {"count", OptionHandler::createWithUnsigned(count)},
         {"threads", OptionHandler::createWithUnsigned(threads, 1)},
         {"proportion", OptionHandler::createWithDouble(proportion, 0, 1, true)},
         {"text", OptionHandler::createWithString(text)},
         {"method", OptionHandler::createWithChoice(method, {"auto", "true", "false"})},
         {"colour",
          OptionHandler::createWithEnum(
              colour, {{"red", Colour::RED}, {"green", Colour::GREEN}, {"blue", Colour::BLUE}})}});
  }
};

} // namespace

TEST(OptionParsing, EveryKindStoresItsValue) {
  Reader r;
  r.spec().parse(poplar::OptionFlags{{"flag", "true"},
                                     {"count", "0"},
                                     {"threads", "4294967295"},
                                     {"proportion", "1"},
                                     {"text", ""},
                                     {"method", "false"},
                                     {"colour", "blue"}});
  EXPECT_TRUE(r.flag);
  EXPECT_EQ(r.count, 0u);
  EXPECT_EQ(r.threads, 4294967295u);
  EXPECT_DOUBLE_EQ(r.proportion, 1.0);
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.method, "false");
  EXPECT_EQ(r.colour, Colour::BLUE);
}

TEST(OptionParsing, AbsentOptionsKeepTheirDefaults) {
  Reader r;
  r.spec().parse(poplar::OptionFlags{});
  EXPECT_FALSE(r.flag);
  EXPECT_EQ(r.count, 7u);
  EXPECT_DOUBLE_EQ(r.proportion, 0.6);
  EXPECT_EQ(r.method, "auto");
  EXPECT_EQ(r.colour, Colour::RED);
}

TEST(OptionParsing, UnknownNameSuggestsTheNearest) {
  Reader r;
  EXPECT_TRUE(throwsWithMessage<invalid_option>(
      [&] { r.spec().parse("proportoin", "0.5"); },
      {"test::reader", "unknown option 'proportoin'", "(did you mean 'proportion'?)"}));
  EXPECT_TRUE(throwsWithMessage<invalid_option>([&] { r.spec().parse("colur", "red"); },
                                                {"'colur'", "did you mean 'colour'"}));
}

TEST(OptionParsing, UnrelatedUnknownNameHasNoSuggestion) {
  Reader r;
  try {
    r.spec().parse("zzzzzzzz", "1");
    FAIL() << "expected invalid_option";
  } catch (const invalid_option &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'zzzzzzzz'"), std::string::npos) << what;
    EXPECT_EQ(what.find("did you mean"), std::string::npos) << what;
  }
}

TEST(OptionParsing, EmptyTableSaysItTakesNoOptions) {
  EXPECT_TRUE(throwsWithMessage<invalid_option>(
      [] { OptionSpec("test::none", {}).parse("anything", "1"); },
      {"test::none", "unknown option 'anything'", "takes no options"}));
}

TEST(OptionParsing, BadBoolNamesOptionValueAndChoices) {
  Reader r;
  EXPECT_TRUE(throwsWithMessage<invalid_option>(
      [&] { r.spec().parse("flag", "yes"); },
      {"test::reader", "option 'flag'", "'yes'", "'true' or 'false'"}));
  EXPECT_TRUE(throwsWithMessage<invalid_option>([&] { r.spec().parse("flag", "ture"); },
                                                {"'ture'", "did you mean 'true'"}));
  EXPECT_FALSE(r.flag);
}

TEST(OptionParsing, UnsignedRejectsSignsWordsOverflowAndValuesBelowTheLowest) {
  Reader r;
  for (const char *bad : {"-1", "two", "", "1.5", "4294967296", "99999999999"})
    EXPECT_TRUE(throwsWithMessage<invalid_option>([&] { r.spec().parse("count", bad); },
                                                  {"'count'", "non-negative integer"}))
        << bad;
  EXPECT_TRUE(throwsWithMessage<invalid_option>([&] { r.spec().parse("threads", "0"); },
                                                {"'threads'", "'0'", "at least 1"}));
  EXPECT_EQ(r.count, 7u);
  EXPECT_EQ(r.threads, 1u);
}

TEST(OptionParsing, DoubleOutsideItsRangeIsRejected) {
  Reader r;
  for (const char *bad : {"0", "-0.5", "1.5", "lots", "nan", "0.5x", ""}) {
    std::string quoted = "has value '"; // built in steps: GCC 12's -Wrestrict misfires on `"'" + s`
    quoted += bad;
    quoted += '\'';
    EXPECT_TRUE(
        throwsWithMessage<invalid_option>([&] { r.spec().parse("proportion", bad); },
                                          {"option 'proportion'", quoted, "a number in (0, 1]"}))
        << bad;
  }
  EXPECT_DOUBLE_EQ(r.proportion, 0.6);
  r.spec().parse("proportion", "1e-3");
  EXPECT_DOUBLE_EQ(r.proportion, 0.001);
}

TEST(OptionParsing, EnumAndChoiceErrorsSuggestTheNearestValue) {
  Reader r;
  EXPECT_TRUE(throwsWithMessage<invalid_option>(
      [&] { r.spec().parse("colour", "gren"); },
      {"option 'colour'", "'gren'", "one of 'blue', 'green', 'red'", "did you mean 'green'"}));
  EXPECT_TRUE(throwsWithMessage<invalid_option>(
      [&] { r.spec().parse("method", "atuo"); },
      {"option 'method'", "'atuo'", "one of 'auto', 'true', 'false'", "did you mean 'auto'"}));
  EXPECT_EQ(r.colour, Colour::RED);
  EXPECT_EQ(r.method, "auto");
}

TEST(OptionParsing, NamesAreSorted) {
  Reader r;
  const std::vector<std::string> expected = {"colour",     "count", "flag",   "method",
                                             "proportion", "text",  "threads"};
  EXPECT_EQ(r.spec().names(), expected);
}

TEST(Suggest, OneEditDistanceCountsSwapsAsOneEdit) {
  EXPECT_EQ(poputil::editDistance("input", "input"), 0u);
  EXPECT_EQ(poputil::editDistance("inptu", "input"), 1u);
  EXPECT_EQ(poputil::editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(poputil::nearestName("weigths", {"weights", "biases"}), "weights");
  EXPECT_EQ(poputil::nearestName("zzzz", {"weights", "biases"}), "");
  EXPECT_EQ(poputil::didYouMean("biasse", {"weights", "biases"}), " (did you mean 'biases'?)");
}

TEST(Describe, ShapesAndTensors) {
  EXPECT_EQ(poputil::shapeString({2, 3}), "[2,3]");
  EXPECT_EQ(poputil::shapeString({}), "[]");
  EXPECT_EQ(poputil::shapeString(std::vector<std::size_t>{7}), "[7]");
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::Tensor w = graph.addVariable(poplar::FLOAT, {3, 4}, "weights");
  EXPECT_EQ(poputil::describe(w), "'weights' (float[3,4])");
  EXPECT_EQ(poputil::describe(poplar::Tensor()), "<invalid tensor>");
}
