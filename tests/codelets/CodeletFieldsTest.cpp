// Every field kind of a compiled codelet file, read back with tessera::testing::runVertex.
#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/VertexTemplates.hpp>
#include <tessera/VertexType.hpp>
#include <tessera/testing/RunVertex.hpp>

#include "CodeletTestSupport.hpp"

using namespace poplar;
using tessera::testing::runVertex;
using tessera::testing::RunVertexOptions;
using tessera::testing::VertexResult;

namespace {
RunVertexOptions fieldKinds() { return codelettest::fixtureOptions("FieldKinds.cpp"); }
} // namespace

TEST(CodeletFields, ScalarInputOutputInOut) {
  const VertexResult r =
      runVertex("ScalarFields", {{"in", 21}, {"out", 0}, {"acc", 1.5f}}, fieldKinds());
  EXPECT_EQ(r.scalar<int>("out"), 42);
  EXPECT_EQ(r.scalar<float>("acc"), 22.5f);
  EXPECT_EQ(r.scalar<int>("in"), 21) << "inputs are left alone";
}

TEST(CodeletFields, VectorInputOutputInOutWithLayoutArguments) {
  const VertexResult r = runVertex("VectorFields",
                                   {{"in", std::vector<float>{1, 2, 3}},
                                    {"out", std::vector<float>(3)},
                                    {"counts", std::vector<int>{10, 20}}},
                                   fieldKinds());
  EXPECT_EQ(r.vector<float>("out"), (std::vector<float>{1.5f, 2.5f, 3.5f}));
  EXPECT_EQ(r.vector<int>("counts"), (std::vector<int>{13, 23}));
}

TEST(CodeletFields, VectorLists) {
  const VertexResult r = runVertex("ListFields",
                                   {{"in", std::vector<std::vector<float>>{{1, 2}, {}, {3, 4, 5}}},
                                    {"sums", std::vector<float>(3)},
                                    {"io", std::vector<std::vector<int>>{{0, 0}, {5}, {1, 2, 3}}}},
                                   fieldKinds());
  EXPECT_EQ(r.vector<float>("sums"), (std::vector<float>{3, 0, 12}));
  EXPECT_EQ(r.lists<int>("io"), (std::vector<std::vector<int>>{{0, 0}, {6}, {3, 4, 5}}));
}

TEST(CodeletFields, VectorOfInputVectors) {
  const VertexResult r = runVertex("VectorOfVectors",
                                   {{"in", std::vector<std::vector<float>>{{1, 2}, {3}}},
                                    {"out", std::vector<std::vector<float>>{{0, 0}, {0}}}},
                                   fieldKinds());
  EXPECT_EQ(r.lists<float>("out"), (std::vector<std::vector<float>>{{1, 2}, {6}}));
  const auto type = tessera::findVertexType("VectorOfVectors");
  ASSERT_TRUE(type);
  EXPECT_EQ(type->findField("in")->kind, tessera::FieldKind::VectorList);
  EXPECT_EQ(type->findField("in")->direction, tessera::FieldDirection::In);
  EXPECT_EQ(type->findField("out")->direction, tessera::FieldDirection::Out);
}

TEST(CodeletFields, PlainScalarAndVectorMembers) {
  const VertexResult r = runVertex("PlainFields",
                                   {{"in", std::vector<float>{1, 2, 3, 4}},
                                    {"out", std::vector<float>(4, -1.0f)},
                                    {"flagOut", false},
                                    {"scale", 10.0f},
                                    {"count", 3u},
                                    {"table", std::vector<int>{100, 200}},
                                    {"flag", true}},
                                   fieldKinds());
  EXPECT_EQ(r.vector<float>("out"), (std::vector<float>{110, 220, 130, -1}));
  EXPECT_TRUE(r.scalar<bool>("flagOut"));
  const auto type = tessera::findVertexType("PlainFields");
  EXPECT_EQ(type->findField("scale")->kind, tessera::FieldKind::Plain);
  EXPECT_EQ(type->findField("table")->kind, tessera::FieldKind::PlainVector);
  EXPECT_EQ(type->findField("count")->elementType, UNSIGNED_INT);
}

TEST(CodeletFields, TemplatedVertexThroughTemplateVertex) {
  const std::string floatName = poputil::templateVertex("Axpy", FLOAT);
  const std::string intName = poputil::templateVertex("Axpy", INT);
  EXPECT_EQ(floatName, "Axpy<float>");
  const VertexResult f = runVertex(
      floatName,
      {{"x", std::vector<float>{1, 2}}, {"y", std::vector<float>{10, 10}}, {"alpha", 0.5f}},
      fieldKinds());
  EXPECT_EQ(f.vector<float>("y"), (std::vector<float>{10.5f, 11}));
  const VertexResult i = runVertex(
      intName, {{"x", std::vector<int>{1, 2}}, {"y", std::vector<int>{1, 1}}, {"alpha", 3}},
      fieldKinds());
  EXPECT_EQ(i.vector<int>("y"), (std::vector<int>{4, 7}));
  const VertexResult t = runVertex(poputil::templateVertex("TimesN", FLOAT, 3u),
                                   {{"in", 2.5f}, {"out", 0.0f}}, fieldKinds());
  EXPECT_EQ(t.scalar<float>("out"), 7.5f);
}

TEST(CodeletFields, NamespacedSupervisorVertexUsingAnIncludedHeader) {
  const VertexResult r =
      runVertex("myops::Negate",
                {{"in", std::vector<float>{1, -2}}, {"out", std::vector<float>(2)}}, fieldKinds());
  EXPECT_EQ(r.vector<float>("out"), (std::vector<float>{-1, 2}));
}

TEST(CodeletFields, ParserIgnoresCommentsStringsAndHelpers) {
  RunVertexOptions opts = fieldKinds();
  Graph graph(codelettest::device().getTarget());
  graph.addCodelets(opts.codeletFiles.front());
  for (const char *ghost : {"NotAVertex", "Decoy", "Accumulator", "Axpy"})
    EXPECT_FALSE(tessera::findVertexType(ghost)) << ghost;
  const auto type = tessera::findVertexType("ScalarFields");
  ASSERT_TRUE(type);
  EXPECT_EQ(type->fields.size(), 3u);
  EXPECT_NE(type->origin.find("FieldKinds.cpp"), std::string::npos) << type->origin;
}

TEST(CodeletFields, MultiVertexWorkerCountFromTheTarget) {
  RunVertexOptions opts{{codelettest::fixture("WorkerScale.cpp")}, "", 4};
  const VertexResult r = runVertex("WorkerScale",
                                   {{"in", std::vector<float>(9, 1.0f)},
                                    {"out", std::vector<float>(9)},
                                    {"worker", std::vector<unsigned>(9)},
                                    {"factor", 2.0f}},
                                   opts);
  EXPECT_EQ(r.vector<float>("out"), std::vector<float>(9, 2.0f));
  EXPECT_EQ(r.vector<unsigned>("worker"), (std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3, 0}));
}

TEST(CodeletFields, CycleEstimatesFromTheVertexAndFromSetPerfEstimate) {
  const Device dev = codelettest::device();
  Graph graph(dev.getTarget());
  graph.addCodelets(codelettest::fixture("FieldKinds.cpp"));
  Tensor in = graph.addVariable(FLOAT, {2, 8}, "in");
  Tensor out = graph.addVariable(FLOAT, {3}, "out");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(out, 0);
  ComputeSet cs = graph.addComputeSet("estimates");
  VertexRef own = graph.addVertex(cs, "Estimated", {{"in", in[0]}, {"out", out[0]}});
  VertexRef overridden =
      graph.addVertex(cs, "Estimated", {{"in", in[1].slice(0, 5)}, {"out", out[1]}});
  VertexRef none = graph.addVertex(cs, "ScalarFields");
  Tensor i = graph.addVariable(INT, {2}, "ints");
  graph.setTileMapping(i, 0);
  graph.connect(none["in"], i[0]);
  graph.connect(none["out"], i[1]);
  graph.connect(none["acc"], out[2]);
  for (auto v : {own, overridden, none})
    graph.setTileMapping(v, 0);
  graph.setPerfEstimate(overridden, 1234);
  Engine engine(graph, program::Execute(cs));
  EXPECT_THROW(engine.getVertexCycleEstimates(), tensor_io_state_error);
  engine.load(dev);
  const auto estimates = engine.getVertexCycleEstimates();
  ASSERT_EQ(estimates.size(), 3u);
  for (const auto &e : estimates) {
    if (e.vertexId == own.getId()) {
      EXPECT_EQ(e.fromVertexType, 10u + 3u * 8u);
      EXPECT_FALSE(e.fromGraph);
      EXPECT_EQ(e.effective(), 34u);
    } else if (e.vertexId == overridden.getId()) {
      EXPECT_EQ(e.fromVertexType, 10u + 3u * 5u);
      EXPECT_EQ(e.fromGraph, 1234u);
      EXPECT_EQ(e.effective(), 1234u);
    } else {
      EXPECT_EQ(e.vertexType, "ScalarFields");
      EXPECT_FALSE(e.fromVertexType);
      EXPECT_EQ(e.effective(), 0u);
    }
  }
}
