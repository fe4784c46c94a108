// Executables carry the codelet objects of the files their graph loaded: another process runs
// one with the codelet source gone and an empty codelet cache.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>

#include "CodeletTestSupport.hpp"

using codelettest::TempDir;
using ::testing::HasSubstr;
using namespace poplar;

TEST(CodeletExecutable, AnotherProcessRunsItWithoutTheCodeletFile) {
  TempDir dir;
  const std::string source =
      dir.write("Dot.cpp", codelettest::readText(codelettest::fixture("DotProduct.cpp")));
  Device device = codelettest::device(2);
  Graph graph(device.getTarget());
  graph.addCodelets(source);
  Tensor a = graph.addVariable(FLOAT, {3}, "a");
  Tensor b = graph.addVariable(FLOAT, {3}, "b");
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 1);
  graph.setTileMapping(out, 1);
  ComputeSet cs = graph.addComputeSet("dot");
  VertexRef v = graph.addVertex(cs, "DotProductVertex", {{"a", a}, {"b", b}, {"out", out}});
  graph.setTileMapping(v, 1);
  graph.createHostWrite("a", a);
  graph.createHostWrite("b", b);
  graph.createHostRead("out", out);
  const std::string file = dir.path() + "/dot.exe";
  {
    std::ofstream os(file, std::ios::binary);
    compileGraph(graph, {program::Execute(cs)}).serialize(os);
  }
  std::filesystem::remove(source);

  std::string output;
  const int status = codelettest::run("TESSERA_CODELET_CACHE='" + dir.path() + "/fresh-cache' '" +
                                          TESSERA_EXECUTABLE_PROBE + "' '" + file + "' 2",
                                      &output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_THAT(output, HasSubstr("out=32"));
}

TEST(CodeletExecutable, WrongDeviceForTheExecutableIsNamedInTheOtherProcess) {
  TempDir dir;
  Device device = codelettest::device(2);
  Graph graph(device.getTarget());
  graph.addCodelets(codelettest::fixture("DotProduct.cpp"));
  Tensor a = graph.addVariable(FLOAT, {3}, "a");
  graph.setTileMapping(a, 0);
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  graph.setTileMapping(out, 0);
  ComputeSet cs = graph.addComputeSet("dot");
  VertexRef v = graph.addVertex(cs, "DotProductVertex", {{"a", a}, {"b", a}, {"out", out}});
  graph.setTileMapping(v, 0);
  const std::string file = dir.path() + "/dot.exe";
  {
    std::ofstream os(file, std::ios::binary);
    compileGraph(graph, {program::Execute(cs)}).serialize(os);
  }
  std::string output;
  const int status =
      codelettest::run(std::string("'") + TESSERA_EXECUTABLE_PROBE + "' '" + file + "' 3", &output);
  EXPECT_EQ(status, 1);
  EXPECT_THAT(output, HasSubstr("compiled for target"));
}
