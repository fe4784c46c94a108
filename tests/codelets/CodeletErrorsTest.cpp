// Bad codelet input: each error has the right exception type and names the culprit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>

#include "CodeletTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
using codelettest::fixture;
using ::testing::HasSubstr;

namespace {

/// The message of the `E` that `f` throws (fails the test if it throws nothing or another type).
template <class E, class F> std::string messageOf(F &&f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "threw another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "threw nothing";
  return "";
}

struct OneTile {
  Device dev = codelettest::device();
  Graph graph{dev.getTarget()};
};

} // namespace

TEST(CodeletErrors, CompileErrorCarriesTheFirstErrorWithFileAndLine) {
  OneTile t;
  std::ostringstream compileOutput;
  const std::string path = fixture("DoesNotCompile.cpp");
  const std::string msg = messageOf<graph_object_load_error>(
      [&] { t.graph.addCodelets(path, CodeletFileType::Auto, "", compileOutput); });
  EXPECT_THAT(msg, HasSubstr(path + ":10:"));
  EXPECT_THAT(msg, HasSubstr("undeclaredScale"));
  // The first line of the message is the compiler's first error.
  const std::string firstLine = msg.substr(0, msg.find('\n'));
  EXPECT_THAT(firstLine, HasSubstr("DoesNotCompile.cpp:10:18: error:")) << firstLine;
}

TEST(CodeletErrors, FileWithoutVertexClasses) {
  OneTile t;
  const std::string msg =
      messageOf<graph_object_load_error>([&] { t.graph.addCodelets(fixture("NoVertices.cpp")); });
  EXPECT_THAT(msg, HasSubstr("NoVertices.cpp"));
  EXPECT_THAT(msg, HasSubstr("defines no vertex class"));
  EXPECT_THAT(msg, HasSubstr("template 'Unused' has no explicit instantiation"));
}

TEST(CodeletErrors, MissingFile) {
  OneTile t;
  const std::string msg =
      messageOf<graph_object_load_error>([&] { t.graph.addCodelets("no/such/Codelets.cpp"); });
  EXPECT_THAT(msg, HasSubstr("no/such/Codelets.cpp"));
  EXPECT_THAT(msg, HasSubstr("does not exist"));
}

TEST(CodeletErrors, AssemblyIsRejected) {
  OneTile t;
  codelettest::TempDir dir;
  const std::string path = dir.write("kernel.S", "// IPU assembly\n");
  const std::string msg = messageOf<graph_object_load_error>([&] { t.graph.addCodelets(path); });
  EXPECT_THAT(msg, HasSubstr("kernel.S"));
  EXPECT_THAT(msg, HasSubstr("PreprocessedAsmSource"));
}

TEST(CodeletErrors, UnknownVertexTypeSuggestsTheNearestName) {
  OneTile t;
  t.graph.addCodelets(fixture("DotProduct.cpp"));
  ComputeSet cs = t.graph.addComputeSet("cs");
  const std::string msg =
      messageOf<unknown_vertex_type>([&] { t.graph.addVertex(cs, "DotProductVertx"); });
  EXPECT_THAT(msg, HasSubstr("'DotProductVertx'"));
  EXPECT_THAT(msg, HasSubstr("DotProductVertex")) << "did-you-mean suggestion";
}

TEST(CodeletErrors, UnknownFieldListsTheFields) {
  OneTile t;
  t.graph.addCodelets(fixture("DotProduct.cpp"));
  ComputeSet cs = t.graph.addComputeSet("cs");
  VertexRef v = t.graph.addVertex(cs, "DotProductVertex");
  Tensor x = t.graph.addVariable(FLOAT, {4}, "x");
  const std::string msg = messageOf<unknown_field>([&] { t.graph.connect(v["c"], x); });
  EXPECT_THAT(msg, HasSubstr("'c'"));
  EXPECT_THAT(msg, HasSubstr("DotProductVertex"));
  EXPECT_THAT(msg, HasSubstr("a, b, out"));
}

TEST(CodeletErrors, WrongElementType) {
  OneTile t;
  t.graph.addCodelets(fixture("DotProduct.cpp"));
  ComputeSet cs = t.graph.addComputeSet("cs");
  VertexRef v = t.graph.addVertex(cs, "DotProductVertex");
  Tensor ints = t.graph.addVariable(INT, {4}, "ints");
  const std::string msg = messageOf<graph_connection_error>([&] { t.graph.connect(v["a"], ints); });
  EXPECT_THAT(msg, HasSubstr("field 'a'"));
  EXPECT_THAT(msg, HasSubstr("float"));
  EXPECT_THAT(msg, HasSubstr("'ints'"));
  EXPECT_THAT(msg, HasSubstr("int"));
}

TEST(CodeletErrors, ScalarFieldConnectedToManyElements) {
  OneTile t;
  t.graph.addCodelets(fixture("DotProduct.cpp"));
  ComputeSet cs = t.graph.addComputeSet("cs");
  VertexRef v = t.graph.addVertex(cs, "DotProductVertex");
  Tensor y = t.graph.addVariable(FLOAT, {3}, "y");
  const std::string msg = messageOf<graph_connection_error>([&] { t.graph.connect(v["out"], y); });
  EXPECT_THAT(msg, HasSubstr("field 'out'"));
  EXPECT_THAT(msg, HasSubstr("one-element"));
  EXPECT_THAT(msg, HasSubstr("'y'"));
}

TEST(CodeletErrors, VectorSizeDisagreesWithSetFieldSize) {
  OneTile t;
  t.graph.addCodelets(fixture("DotProduct.cpp"));
  ComputeSet cs = t.graph.addComputeSet("cs");
  VertexRef v = t.graph.addVertex(cs, "DotProductVertex");
  Tensor x = t.graph.addVariable(FLOAT, {5}, "x");
  t.graph.setFieldSize(v["a"], 4);
  const std::string msg = messageOf<graph_connection_error>([&] { t.graph.connect(v["a"], x); });
  EXPECT_THAT(msg, HasSubstr("field 'a'"));
  EXPECT_THAT(msg, HasSubstr("4"));
  EXPECT_THAT(msg, HasSubstr("5"));
  // And the other order: connected first, then a different size.
  VertexRef w = t.graph.addVertex(cs, "DotProductVertex");
  t.graph.connect(w["b"], x);
  const std::string msg2 =
      messageOf<graph_connection_error>([&] { t.graph.setFieldSize(w["b"], 3); });
  EXPECT_THAT(msg2, HasSubstr("field 'b'"));
  EXPECT_THAT(msg2, HasSubstr("'x'"));
}

TEST(CodeletErrors, ThrowingComputeIsReportedAndTheEngineStaysUsable) {
  const Device dev = codelettest::device(2);
  Graph graph(dev.getTarget());
  graph.addCodelets(fixture("Throws.cpp"));
  Tensor in = graph.addVariable(FLOAT, {2}, "in");
  Tensor out = graph.addVariable(FLOAT, {2}, "out");
  ComputeSet cs = graph.addComputeSet("mayThrow");
  for (unsigned tile = 0; tile < 2; ++tile) {
    graph.setTileMapping(in[tile], tile);
    graph.setTileMapping(out[tile], tile);
    VertexRef v = graph.addVertex(cs, "ThrowsOnNegative", {{"in", in[tile]}, {"out", out[tile]}});
    graph.setTileMapping(v, tile);
  }
  graph.createHostWrite("in", in);
  graph.createHostRead("out", out);
  Engine engine(graph, Execute(cs));
  engine.load(dev);
  const float bad[2] = {1.0f, -1.0f};
  engine.writeTensor("in", bad, bad + 2);
  const std::string msg = messageOf<application_runtime_error>([&] { engine.run(); });
  EXPECT_THAT(msg, HasSubstr("ThrowsOnNegative"));
  EXPECT_THAT(msg, HasSubstr("compute set 'mayThrow'"));
  EXPECT_THAT(msg, HasSubstr("tile 1"));
  EXPECT_THAT(msg, HasSubstr("negative input to ThrowsOnNegative"));
  // Still usable: fix the input and run again.
  const float good[2] = {1.0f, 2.0f};
  engine.writeTensor("in", good, good + 2);
  engine.run();
  float result[2] = {};
  engine.readTensor("out", result, result + 2);
  EXPECT_EQ(result[0], 1.0f);
  EXPECT_EQ(result[1], 2.0f);
}
