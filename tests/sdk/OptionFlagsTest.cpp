// OptionFlags as a string map, readJSON's accepted grammar and its parse errors, and the
// Engine's rejection of unknown or malformed options.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;

TEST(OptionFlagsMap, SetOverwritesAndIteratesInKeyOrder) {
  OptionFlags o{{"b", "1"}, {"a", "2"}};
  o.set("c", "3");
  o.set("a", "20");
  o.set({{"d", "4"}, {"b", "10"}});
  EXPECT_EQ(o.size(), 4u);
  std::vector<std::pair<std::string, std::string>> seen(o.begin(), o.end());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {"a", "20"}, {"b", "10"}, {"c", "3"}, {"d", "4"}}));
  EXPECT_EQ(o.at("a"), "20");
  EXPECT_TRUE(o.contains("d"));
  o.remove("d");
  EXPECT_FALSE(o.contains("d"));
  EXPECT_FALSE(o.empty());
  o.clear();
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.size(), 0u);
}

TEST(OptionFlagsMap, EqualityComparesEveryPair) {
  OptionFlags a{{"x", "1"}, {"y", "2"}};
  OptionFlags b;
  b.set("y", "2");
  b.set("x", "1");
  EXPECT_TRUE(a == b);
  b.set("x", "3");
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(OptionFlags() == OptionFlags());
}

TEST(OptionFlagsMap, AtOfMissingKeyIsInvalidOptionNamingIt) {
  OptionFlags o{{"present", "1"}};
  EXPECT_THROW_MSG(invalid_option, o.at("absent.key"), {"'absent.key'"});
}

TEST(OptionFlagsMap, PrintsAsJson) {
  OptionFlags o{{"b", "x"}, {"a", "1"}};
  std::ostringstream os;
  os << o;
  EXPECT_EQ(os.str(), "{\"a\": \"1\", \"b\": \"x\"}");
  std::ostringstream empty;
  empty << OptionFlags();
  EXPECT_EQ(empty.str(), "{}");
}

TEST(ReadJSON, ReadsStringsNumbersAndBooleans) {
  OptionFlags o;
  readJSON(R"({"autoReport.all": "true", "opt.maxCompilationThreads": 4,
               "debug.instrument": false, "ratio": -1.5e3})",
           o);
  EXPECT_EQ(o.size(), 4u);
  EXPECT_EQ(o.at("autoReport.all"), "true");
  EXPECT_EQ(o.at("opt.maxCompilationThreads"), "4");
  EXPECT_EQ(o.at("debug.instrument"), "false");
  EXPECT_EQ(o.at("ratio"), "-1.5e3");
}

TEST(ReadJSON, PrintedFlagsReadBackEqual) {
  OptionFlags o{{"autoReport.directory", "/tmp/report dir"}, {"target.hostThreads", "2"}};
  std::ostringstream os;
  os << o;
  OptionFlags back;
  readJSON(os.str(), back);
  EXPECT_TRUE(back == o);
}

TEST(ReadJSON, HandlesWhitespaceEscapesAndEmptyObjects) {
  OptionFlags o{{"keep", "me"}};
  readJSON("  {  }  ", o);
  EXPECT_EQ(o.size(), 1u);
  readJSON("{\"quote\\\"d\" : \"a\\\\b\\tc\\nd\"}", o);
  EXPECT_EQ(o.at("quote\"d"), "a\\b\tc\nd");
  EXPECT_EQ(o.at("keep"), "me");
}

TEST(ReadJSON, DecodesEveryJsonEscape) {
  OptionFlags o;
  readJSON(R"({"s": "a\/b\rc\bd\fe", "u": "\u0041\u00e9\u20AC"})", o);
  EXPECT_EQ(o.at("s"), "a/b\rc\bd\fe");
  EXPECT_EQ(o.at("u"), "A\xC3\xA9\xE2\x82\xAC");
}

TEST(ReadJSON, InvalidEscapeIsParseError) {
  OptionFlags o;
  EXPECT_THROW_MSG(parse_error, readJSON(R"({"a": "x\qy"})", o),
                   {"invalid escape '\\q'", "offset 9"});
  EXPECT_THROW_MSG(parse_error, readJSON(R"({"a": "\u12G4"})", o),
                   {"four hex digits", "offset 11"});
}

TEST(ReadJSON, PrintedFlagsWithQuotesAndBackslashesReadBackEqual) {
  OptionFlags o{{"path", "C:\\dir \"quoted\""}, {"multi", "line1\nline2\ttab"}};
  std::ostringstream os;
  os << o;
  OptionFlags back;
  readJSON(os.str(), back);
  EXPECT_TRUE(back == o) << os.str();
}

TEST(ReadJSON, LaterKeysOverrideEarlierOnesAndExistingFlags) {
  OptionFlags o{{"k", "old"}};
  readJSON(R"({"k": "first", "k": "second"})", o);
  EXPECT_EQ(o.at("k"), "second");
}

TEST(ReadJSON, MalformedInputIsParseErrorWithOffset) {
  struct Case {
    const char *json;
    const char *needle;
  };
  const Case cases[] = {
      {"", "expected '{'"},
      {"[1, 2]", "expected '{'"},
      {"{\"a\": 1", "expected '}'"},
      {"{\"a\" 1}", "expected ':'"},
      {"{a: 1}", "expected '\"'"},
      {"{\"a\": }", "expected a string, number or boolean"},
      {"{\"a\": {\"b\": 1}}", "expected a string, number or boolean"},
      {"{\"a\": \"unterminated}", "expected '\"'"},
      {"{\"a\": 1,}", "expected '\"'"},
      {"{\"a\": 1} trailing", "trailing characters"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.json);
    OptionFlags o;
    EXPECT_THROW_MSG(parse_error, readJSON(c.json, o), {c.needle, "offset", "JSON options"});
  }
}

TEST(ReadJSON, ParseErrorMessageQuotesTheInput) {
  OptionFlags o;
  EXPECT_THROW_MSG(parse_error, readJSON("{\"x\": 1 \"y\": 2}", o),
                   {"offset 8", "{\"x\": 1 \"y\": 2}"});
}

// ---- options as an Engine reads them -----------------------------------------------------------

namespace {
class EngineOptionParsing : public ::testing::Test {
protected:
  EngineOptionParsing() : device(viewref::smallDevice(4)), graph(device.getTarget()) {
    Tensor t = graph.addVariable(FLOAT, {2}, "t");
    graph.setTileMapping(t, 0);
  }
  Device device;
  Graph graph;
};
} // namespace

TEST_F(EngineOptionParsing, UnknownKeyIsInvalidOptionSuggestingTheNearest) {
  EXPECT_THROW_MSG(invalid_option,
                   Engine(graph, program::Sequence{}, OptionFlags{{"debug.instrumnet", "true"}}),
                   {"'debug.instrumnet'", "did you mean 'debug.instrument'"});
}

TEST_F(EngineOptionParsing, MalformedValueIsInvalidOptionNamingKeyAndValue) {
  EXPECT_THROW_MSG(invalid_option,
                   Engine(graph, program::Sequence{}, OptionFlags{{"debug.instrument", "yes"}}),
                   {"'debug.instrument'", "'yes'", "'true' or 'false'"});
  EXPECT_THROW_MSG(invalid_option,
                   Engine(graph, program::Sequence{}, OptionFlags{{"target.hostThreads", "-1"}}),
                   {"'target.hostThreads'", "'-1'"});
}

TEST_F(EngineOptionParsing, KnownOptionsAreAccepted) {
  OptionFlags opts{{"target.hostThreads", "1"}, {"debug.instrument", "true"}};
  Engine engine(graph, program::Sequence{}, opts);
  EXPECT_EQ(engine.getNumHostThreads(), 1u);
}
