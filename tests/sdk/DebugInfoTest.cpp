// DebugContext with source locations, DebugNameAndId / DebugInfo ids and paths, ProfileValue,
// the DebugInfo streamer, and poputil's toProfileValue / PoplibsOpDebugInfo / DI_ARGS.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poputil/DebugInfo.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using testerrors::throwsWithMessage;

namespace {

/// As a library operation is written: the context is its defaulted last argument.
DebugContext libraryOp(int size, const DebugContext &dc = {}) {
  (void)size;
  return dc;
}

std::string recordOf(const Tensor &t, const std::vector<int> &sizes, const DebugContext &dc = {}) {
  poputil::PoplibsOpDebugInfo di(dc, DI_ARGS(t, sizes));
  di.addOutput(t);
  std::ostringstream s;
  s << ProfileValue(di.getValues());
  return s.str();
}

} // namespace

TEST(DebugContext, RecordsTheCallersSourceLocation) {
  const unsigned line = __LINE__ + 1;
  DebugContext dc = libraryOp(3);
  EXPECT_TRUE(dc.getSourceLocation().isValid());
  EXPECT_EQ(dc.getSourceLocation().getLineNumber(), line);
  EXPECT_NE(std::string(dc.getSourceLocation().getFunctionName()).find("TestBody"),
            std::string::npos);
  DebugContext named("layer", POPLAR_SOURCE_LOCATION);
  EXPECT_EQ(named.getSourceLocation().getLineNumber(), unsigned(__LINE__ - 1));
  EXPECT_EQ(named.getPathName(), "layer");
  // Nesting keeps the path, as before.
  DebugContext child(named, "conv");
  EXPECT_EQ(child.getPathName(), "layer/conv");
  EXPECT_EQ(DebugContext(DebugNameAndId("a"), "b").getPathName(), "a/b");
}

TEST(DebugInfo, IdsPathsAndValues) {
  DebugInfo parent(DebugContext("model"), "app");
  DebugInfo other(DebugContext("x"), "app");
  EXPECT_NE(parent.getId(), 0u);
  EXPECT_NE(parent.getId(), other.getId());
  EXPECT_EQ(parent.getPathName(), "model");

  DebugContext under(parent, "layer1");
  EXPECT_EQ(under.getPathName(), "model/layer1");
  EXPECT_EQ(under.getId(), parent.getId());
  DebugNameAndId dnai(parent, "w");
  EXPECT_EQ(dnai.getPathName(), "model/w");
  EXPECT_EQ(dnai.getId(), parent.getId());
  EXPECT_EQ(DebugNameAndId("n", 42, "full/path").getPathName(), "full/path");
  EXPECT_EQ(DebugNameAndId(DebugId(7)).getId(), 7u);

  EXPECT_TRUE(parent.setValue("lr", 0.5));
  EXPECT_FALSE(parent.setValue("lr", 0.25));
  EXPECT_EQ(parent.getValues().at("lr").asDouble(), 0.5);
  EXPECT_EQ(parent.getValues().at("layer").asString(), "app");

  DebugInfo child(under, "poplibs");
  EXPECT_EQ(child.getValues().at("parentId").asUint(), parent.getId());
}

TEST(ProfileValue, TypesAccessAndJson) {
  ProfileValue m = ProfileValue::Map{
      {"name", "w"}, {"n", 3}, {"on", true}, {"xs", ProfileValue::Vector{1, 2.5, "s"}}};
  EXPECT_EQ(m.type(), ProfileValue::Type::MAP);
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(m["name"].asString(), "w");
  EXPECT_EQ(m["n"].asInt(), 3);
  EXPECT_TRUE(m["on"].asBool());
  EXPECT_EQ(m["xs"][1].asDouble(), 2.5);
  std::ostringstream s;
  s << m;
  EXPECT_EQ(s.str(), R"({"n":3,"name":"w","on":true,"xs":[1,2.5,"s"]})");
  ProfileValue copy = m;
  EXPECT_EQ(copy, m);
  EXPECT_NE(copy, ProfileValue("w"));
  EXPECT_TRUE(throwsWithMessage<poplar_error>([&] { (void)m["missing"]; }, {"'missing'"}));
  EXPECT_TRUE(
      throwsWithMessage<poplar_error>([&] { (void)m["n"].asString(); }, {"string", "number"}));
  EXPECT_TRUE(throwsWithMessage<index_error>([&] { (void)m["xs"][3]; }, {"index 3", "3 elements"}));
  EXPECT_TRUE(
      throwsWithMessage<poplar_error>([&] { (void)ProfileValue(-1).asUint(); }, {"unsigned"}));
}

TEST(PoplibsOpDebugInfo, DiArgsNamesArgumentsAndApiDefaultsToTheCaller) {
  Device device = viewref::smallDevice(2);
  Graph graph(device.getTarget());
  Tensor w = graph.addVariable(FLOAT, {2, 3}, "weights");
  std::vector<int> sizes = {4, 5};
  const std::string json = recordOf(w, sizes, {"op"});
  EXPECT_NE(json.find(R"("layer":"poplibs")"), std::string::npos) << json;
  EXPECT_NE(
      json.find(R"("args":{"sizes":[4,5],"t":{"name":"weights","shape":[2,3],"type":"float"}})"),
      std::string::npos)
      << json;
  // Outputs are recorded when the record is finished (destroyed): see them in the stream.
  const std::string path = "/tmp/tessera_opdebuginfo_" + std::to_string(getpid()) + ".json";
  DebugInfo::initializeStreamer(path, DebugSerializationFormat::JSON);
  (void)recordOf(w, sizes, {"op"});
  DebugInfo::closeStreamer();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  EXPECT_NE(text.str().find(R"("outputs":{"output":{"name":"weights")"), std::string::npos)
      << text.str();
  // api: the function the context was made in (here this test body).
  EXPECT_NE(json.find(R"("api":")"), std::string::npos);
  EXPECT_NE(json.find("TestBody"), std::string::npos) << json;

  poputil::PoplibsOpDebugInfo named({"x"}, {}, "popops::add");
  EXPECT_EQ(named.getValues().at("api").asString(), "popops::add");
  OptionFlags opts{{"a", "1"}};
  ComputeSet cs;
  auto args = DI_ARGS(opts, cs, Interval(1, 2), std::optional<int>());
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[0].first, "opts");
  EXPECT_EQ(args[0].second["a"].asString(), "1");
  EXPECT_EQ(args[2].second[1].asUint(), 2u);
  EXPECT_EQ(args[3].second.asString(), "<none>");
}

TEST(DebugInfo, StreamerWritesOneJsonDocument) {
  const std::string path = "/tmp/tessera_debuginfo_" + std::to_string(getpid()) + ".json";
  DebugInfo::initializeStreamer(path, DebugSerializationFormat::JSON);
  { DebugInfo a(DebugContext("first"), "test"); }
  { DebugInfo b(DebugContext("second"), "test"); }
  DebugInfo::closeStreamer();
  DebugInfo::closeStreamer(); // a second close does nothing
  { DebugInfo c(DebugContext("after"), "test"); }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  EXPECT_EQ(text.str().rfind("{\"contexts\": [", 0), 0u) << text.str();
  EXPECT_NE(text.str().find(R"("name":"first")"), std::string::npos);
  EXPECT_NE(text.str().find(R"("name":"second")"), std::string::npos);
  EXPECT_EQ(text.str().find("after"), std::string::npos);
  EXPECT_EQ(text.str().substr(text.str().size() - 4), "\n]}\n");
  EXPECT_TRUE(throwsWithMessage<poplar_error>(
      [] { DebugInfo::initializeStreamer("/nonexistent-dir/x.json"); },
      {"/nonexistent-dir/x.json"}));
}
