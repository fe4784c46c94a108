// Errors found while building or compiling a graph, or while running it. Each test checks the
// exact exception type and that the message names the culprit (field, vertex, variable, tile).
#include <gtest/gtest.h>

#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

struct Fixture {
  Device device;
  Graph graph;
  explicit Fixture(unsigned tiles = 4)
      : device(enginetest::smallDevice(tiles)), graph(device.getTarget()) {
    testvertices::registerTestVertices();
  }
  Tensor var(Type type, std::vector<std::size_t> shape, const std::string &name, unsigned tile) {
    Tensor t = graph.addVariable(type, shape, name);
    graph.setTileMapping(t, tile);
    return t;
  }
};

Device deviceWithTileBytes(unsigned tiles, unsigned bytes) {
  IPUModel model;
  model.tilesPerIPU = tiles;
  model.memoryBytesPerTile = bytes;
  return model.createDevice();
}

} // namespace

TEST(EngineErrors, FieldOfWrongElementTypeNamesFieldAndVertex) {
  Fixture f;
  Tensor ints = f.var(INT, {4}, "ints", 0);
  ComputeSet cs = f.graph.addComputeSet("sums");
  VertexRef v = f.graph.addVertex(cs, "Sum");
  expectThrowWithMessage<graph_connection_error>(
      [&] { f.graph.connect(v["in"], ints); },
      {"field 'in'", "'Sum'", "compute set 'sums'", "float", "'ints'", "int"});
}

TEST(EngineErrors, ScalarFieldOnMultiElementTensor) {
  Fixture f;
  Tensor many = f.var(FLOAT, {3}, "many", 0);
  ComputeSet cs = f.graph.addComputeSet("copy");
  VertexRef v = f.graph.addVertex(cs, "CopyScalar");
  expectThrowWithMessage<graph_connection_error>(
      [&] { f.graph.connect(v["out"], many); },
      {"field 'out'", "'CopyScalar'", "one-element", "'many'"});
}

TEST(EngineErrors, UnknownVertexTypeSuggestsNearest) {
  Fixture f;
  ComputeSet cs = f.graph.addComputeSet("cs");
  expectThrowWithMessage<unknown_vertex_type>([&] { f.graph.addVertex(cs, "Increament"); },
                                              {"'Increament'", "did you mean 'Increment'"});
}

TEST(EngineErrors, UnknownFieldSuggestsNearestAndListsFields) {
  Fixture f;
  ComputeSet cs = f.graph.addComputeSet("cs");
  VertexRef v = f.graph.addVertex(cs, "Scale");
  Tensor x = f.var(FLOAT, {2}, "x", 0);
  expectThrowWithMessage<unknown_field>([&] { f.graph.connect(v["dat"], x); },
                                        {"'Scale'", "'dat'", "did you mean 'data'", "factor"});
  expectThrowWithMessage<unknown_field>(
      [&] {
        f.graph.addVertex(cs, "Sum", {{"input", x}});
      },
      {"'Sum'", "'input'"});
}

TEST(EngineErrors, UnconnectedFieldAtEngineConstruction) {
  Fixture f;
  Tensor in = f.var(FLOAT, {4}, "in", 0);
  ComputeSet cs = f.graph.addComputeSet("halfDone");
  VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", in}});
  f.graph.setTileMapping(v, 0);
  expectThrowWithMessage<graph_connection_error>([&] { Engine e(f.graph, Execute(cs)); },
                                                 {"field 'out'",
                                                  "vertex " + std::to_string(v.getId()) + " 'Sum'",
                                                  "compute set 'halfDone'", "not connected"});
}

// Poplar runs a vertex whose plain member was never set (its value unspecified); Tessera runs
// it with zero and warns, naming the vertex type and the member (the codelet tests check the
// warning's wording and that it comes once per type and member).
TEST(EngineErrors, PlainMemberNeverSetRunsAsZero) {
  Fixture f;
  Tensor x = f.var(FLOAT, {4}, "x", 0);
  const std::vector<float> ones(4, 1.0f);
  f.graph.setInitialValue(x, poplar::ArrayRef<float>(ones));
  f.graph.createHostRead("x", x);
  ComputeSet cs = f.graph.addComputeSet("scale");
  VertexRef v = f.graph.addVertex(cs, "Scale", {{"data", x}});
  f.graph.setTileMapping(v, 0);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  e.run();
  std::vector<float> out(4, -1.0f);
  e.readTensor("x", out.data(), out.data() + out.size());
  EXPECT_EQ(out, std::vector<float>(4, 0.0f)) << "data *= factor, factor as 0";
}

TEST(EngineErrors, VectorListWithUnsetElement) {
  Fixture f;
  Tensor x = f.var(FLOAT, {4}, "x", 0);
  Tensor out = f.var(FLOAT, {}, "out", 0);
  ComputeSet cs = f.graph.addComputeSet("list");
  VertexRef v = f.graph.addVertex(cs, "SumList", {{"out", out}});
  f.graph.setFieldSize(v["in"], 3);
  f.graph.connect(v["in"][0], x);
  f.graph.connect(v["in"][2], x);
  f.graph.setTileMapping(v, 0);
  expectThrowWithMessage<graph_connection_error>([&] { Engine e(f.graph, Execute(cs)); },
                                                 {"field 'in'", "'SumList'", "3 elements"});
}

TEST(EngineErrors, VertexWithoutTile) {
  Fixture f;
  Tensor x = f.var(FLOAT, {}, "x", 0);
  ComputeSet cs = f.graph.addComputeSet("floating");
  VertexRef v = f.graph.addVertex(cs, "CopyScalar", {{"in", x}, {"out", x}});
  expectThrowWithMessage<invalid_tile_mapping>(
      [&] { Engine e(f.graph, Execute(cs)); },
      {"vertex " + std::to_string(v.getId()) + " 'CopyScalar'", "'floating'", "setTileMapping"});
}

TEST(EngineErrors, VertexOnTileOutOfRange) {
  Fixture f(4);
  ComputeSet cs = f.graph.addComputeSet("cs");
  VertexRef v = f.graph.addVertex(cs, "Empty");
  expectThrowWithMessage<invalid_tile_mapping>([&] { f.graph.setTileMapping(v, 4); },
                                               {"'Empty'", "tile 4", "4 tiles"});
}

TEST(EngineErrors, UnmappedVariableAtCompile) {
  Fixture f;
  f.var(FLOAT, {4}, "mapped", 0);
  f.graph.addVariable(FLOAT, {6}, "forgotten");
  expectThrowWithMessage<invalid_tile_mapping>([&] { Engine e(f.graph, Sequence()); },
                                               {"'forgotten'", "not completely mapped"});
}

TEST(EngineErrors, PartlyMappedVariableNamesFirstUnmappedElement) {
  Fixture f;
  Tensor t = f.graph.addVariable(FLOAT, {10}, "partial");
  f.graph.setTileMapping(t.slice(0, 4), 1);
  f.graph.setTileMapping(t.slice(7, 10), 2);
  expectThrowWithMessage<invalid_tile_mapping>([&] { Engine e(f.graph, Sequence()); },
                                               {"'partial'", "element 4"});
}

TEST(EngineErrors, TileOverflowNamesTileAndLargestVariable) {
  Device device = deviceWithTileBytes(4, 4096);
  Graph graph(device.getTarget());
  Tensor small = graph.addVariable(FLOAT, {16}, "small");
  Tensor huge = graph.addVariable(FLOAT, {1500}, "hugeActivations");
  Tensor other = graph.addVariable(FLOAT, {100}, "elsewhere");
  graph.setTileMapping(small, 3);
  graph.setTileMapping(huge, 3);
  graph.setTileMapping(other, 0);
  expectThrowWithMessage<graph_memory_allocation_error>(
      [&] { Engine e(graph, Sequence()); },
      {"tile 3", "4096", "'hugeActivations' (6000 bytes)", "debug.allowOutOfMemory"});
}

TEST(EngineErrors, TileOverflowNamesThePartOfASpreadVariableOnTheTile) {
  // The report names a variable's elements on the tile when only part of it lives there, and
  // counts the exchange buffers a remote input needs.
  testvertices::registerTestVertices();
  Device device = deviceWithTileBytes(4, 4096);
  Graph graph(device.getTarget());
  Tensor spread = graph.addVariable(FLOAT, {1600}, "spread");
  graph.setTileMapping(spread.slice(0, 100), 0);
  graph.setTileMapping(spread.slice(100, 1600), 2);
  Tensor remote = graph.addVariable(FLOAT, {300}, "remote");
  graph.setTileMapping(remote, 1);
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  graph.setTileMapping(out, 2);
  ComputeSet cs = graph.addComputeSet("sumRemote");
  VertexRef v = graph.addVertex(cs, "Sum", {{"in", remote}, {"out", out}});
  graph.setTileMapping(v, 2);
  expectThrowWithMessage<graph_memory_allocation_error>(
      [&] { Engine e(graph, Execute(cs)); },
      {"Out of memory on tile 2", "variable 'spread' [100, 1600) (6000 bytes)",
       "vertex state in compute set 'sumRemote'", "exchange buffers (1200 bytes)",
       "1 vertices' state", "most vertex state from compute set 'sumRemote' (1 vertices"});
}

TEST(EngineErrors, TileFullOfSmallVerticesNamesTheirComputeSet) {
  // No single user stands out: hundreds of small vertices of one compute set fill the tile.
  testvertices::registerTestVertices();
  Device device = deviceWithTileBytes(2, 8192);
  Graph graph(device.getTarget());
  Tensor in = graph.addVariable(FLOAT, {400}, "in");
  Tensor out = graph.addVariable(FLOAT, {400}, "out");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(out, 0);
  ComputeSet cs = graph.addComputeSet("manySmallSums");
  for (std::size_t i = 0; i < 400; ++i) {
    VertexRef v = graph.addVertex(cs, "Sum", {{"in", in.slice(i, i + 1)}, {"out", out[i]}});
    graph.setTileMapping(v, 0);
  }
  expectThrowWithMessage<graph_memory_allocation_error>(
      [&] { Engine e(graph, Execute(cs)); },
      {"tile 0", "400 vertices' state",
       "most vertex state from compute set 'manySmallSums' (400 vertices"});
}

TEST(EngineErrors, AllowOutOfMemoryCompilesAndRuns) {
  testvertices::registerTestVertices();
  Device device = deviceWithTileBytes(4, 1024);
  Graph graph(device.getTarget());
  Tensor big = graph.addVariable(FLOAT, {400}, "big");
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  graph.setTileMapping(big, 1);
  graph.setTileMapping(out, 1);
  graph.setInitialValue(big, 0.5f);
  ComputeSet cs = graph.addComputeSet("sum");
  VertexRef v = graph.addVertex(cs, "Sum", {{"in", big}, {"out", out}});
  graph.setTileMapping(v, 1);
  graph.createHostRead("out", out);
  expectThrowWithMessage<graph_memory_allocation_error>([&] { Engine e(graph, Execute(cs)); },
                                                        {"tile 1", "'big' (1600 bytes)"});
  Engine e(graph, Execute(cs), {{"debug.allowOutOfMemory", "true"}});
  e.load(device);
  e.run();
  float got = 0;
  e.readTensor("out", &got, &got + 1);
  EXPECT_EQ(got, 200.0f);
  EXPECT_GT(e.getTileMemoryUsed(1), 1024u);
}

TEST(EngineErrors, ProgramFromAnotherGraph) {
  Fixture f;
  Graph other(f.device.getTarget());
  ComputeSet foreign = other.addComputeSet("foreignCs");
  Tensor foreignT = other.addVariable(FLOAT, {2}, "foreignTensor");
  other.setTileMapping(foreignT, 0);
  Tensor mine = f.var(FLOAT, {2}, "mine", 0);
  expectThrowWithMessage<graph_program_compilation_error>(
      [&] { Engine e(f.graph, Execute(foreign)); }, {"Execute", "another graph"});
  expectThrowWithMessage<graph_program_compilation_error>(
      [&] { Engine e(f.graph, Sequence{Copy(foreignT, foreignT.reverse(0))}); },
      {"Copy", "'foreignTensor'", "another graph"});
  Function fn = other.addFunction(Sequence());
  expectThrowWithMessage<graph_program_compilation_error>([&] { Engine e(f.graph, Call(fn)); },
                                                          {"Call", "another graph"});
  (void)mine;
}

TEST(EngineErrors, VertexReturningFalseNamesVertexComputeSetAndTile) {
  Fixture f;
  Tensor x = f.var(FLOAT, {}, "x", 0);
  Tensor counter = f.var(INT, {}, "counter", 1);
  f.graph.setInitialValue(counter, 0);
  f.graph.createHostRead("counter", counter);
  ComputeSet bad = f.graph.addComputeSet("alwaysFails");
  VertexRef v = f.graph.addVertex(bad, "Fails", {{"in", x}});
  f.graph.setTileMapping(v, 2);
  ComputeSet inc = f.graph.addComputeSet("inc");
  VertexRef i = f.graph.addVertex(inc, "Increment", {{"counter", counter}});
  f.graph.setTileMapping(i, 1);
  std::vector<Program> progs{Execute(bad), Execute(inc)};
  Engine e(f.graph, progs);
  e.load(f.device);
  expectThrowWithMessage<application_runtime_error>(
      [&] { e.run(0); }, {"vertex " + std::to_string(v.getId()) + " 'Fails'",
                          "compute set 'alwaysFails'", "tile 2", "returned false"});
  // The engine is still usable.
  e.run(1);
  e.run(1);
  int c = -1;
  e.readTensor("counter", &c, &c + 1);
  EXPECT_EQ(c, 2);
}

TEST(EngineErrors, VertexThrowingIsReportedAndEngineRecovers) {
  Fixture f;
  Tensor x = f.var(FLOAT, {}, "x", 3);
  f.graph.createHostWrite("x", x);
  ComputeSet cs = f.graph.addComputeSet("check");
  VertexRef v = f.graph.addVertex(cs, "ThrowsIfPositive", {{"in", x}});
  f.graph.setTileMapping(v, 1);
  Engine e(f.graph, Repeat(3, Execute(cs)));
  e.load(f.device);
  float pos = 1, neg = -1;
  e.writeTensor("x", &pos, &pos + 1);
  expectThrowWithMessage<application_runtime_error>(
      [&] { e.run(); }, {"'ThrowsIfPositive'", "compute set 'check'", "tile 1", "positive input"});
  e.writeTensor("x", &neg, &neg + 1);
  EXPECT_NO_THROW(e.run());
  e.writeTensor("x", &pos, &pos + 1);
  expectThrowWithMessage<application_runtime_error>([&] { e.run(); }, {"positive input"});
}

TEST(EngineErrors, LowestFailingTileIsReportedWhateverTheThreadCount) {
  for (unsigned threads : {1u, 3u}) {
    Fixture f(16);
    ComputeSet cs = f.graph.addComputeSet("manyFail");
    for (unsigned t = 15; t >= 5; --t) {
      Tensor x = f.var(FLOAT, {}, std::to_string(t), t);
      VertexRef v = f.graph.addVertex(cs, "Fails", {{"in", x}});
      f.graph.setTileMapping(v, t);
    }
    Engine e(f.graph, Execute(cs), {{"target.hostThreads", std::to_string(threads)}});
    e.load(f.device);
    expectThrowWithMessage<application_runtime_error>([&] { e.run(); }, {"on tile 5 "});
  }
}

TEST(EngineErrors, LoadOnDeviceWithOtherTileCount) {
  Fixture f(4);
  f.var(FLOAT, {2}, "x", 0);
  Engine e(f.graph, Sequence());
  Device other = enginetest::smallDevice(8);
  expectThrowWithMessage<poplar::runtime_error>([&] { e.load(other); },
                                                {"4 tiles", "the device is", "8 tiles"});
}

TEST(EngineErrors, EngineFromVirtualGraphIsRejected) {
  Fixture f(4);
  Graph sub = f.graph.createVirtualGraph(2, 4);
  expectThrowWithMessage<graph_program_compilation_error>([&] { Engine e(sub, Sequence()); },
                                                          {"virtual graph"});
}

TEST(EngineErrors, TileMemoryUsedIndexOutOfRange) {
  Fixture f(4);
  Engine e(f.graph, Sequence());
  expectThrowWithMessage<index_error>([&] { (void)e.getTileMemoryUsed(4); }, {"tile 4", "4 tiles"});
}

namespace {
std::uint64_t align8(std::uint64_t x) { return (x + 7) / 8 * 8; }
} // namespace

TEST(EngineMemory, TileMemoryUsedMatchesClosedForm) {
  Fixture f(4);
  // Tile 0: variables of 12, 4 and 8 bytes, each starting 8-byte aligned.
  f.var(FLOAT, {3}, "a", 0);
  f.var(FLOAT, {1}, "b", 0);
  f.var(FLOAT, {2}, "c", 0);
  // Tile 1: 24 + 4 bytes of variables and the state of a Sum vertex whose data is local.
  Tensor in1 = f.var(FLOAT, {6}, "in1", 1);
  Tensor out1 = f.var(FLOAT, {}, "out1", 1);
  // Tile 2: a Sum vertex reading 6 floats from tile 3 gets a 24-byte exchange buffer.
  Tensor out2 = f.var(FLOAT, {}, "out2", 2);
  Tensor in3 = f.var(FLOAT, {6}, "in3", 3);
  ComputeSet cs = f.graph.addComputeSet("sums");
  VertexRef v1 = f.graph.addVertex(cs, "Sum", {{"in", in1}, {"out", out1}});
  f.graph.setTileMapping(v1, 1);
  VertexRef v2 = f.graph.addVertex(cs, "Sum", {{"in", in3}, {"out", out2}});
  f.graph.setTileMapping(v2, 2);
  Engine e(f.graph, Execute(cs));
  const std::uint64_t state = align8(sizeof(testvertices::Sum));
  EXPECT_EQ(e.getTileMemoryUsed(0), align8(12) + align8(4) + 8);
  EXPECT_EQ(e.getTileMemoryUsed(1), 24 + align8(4) + state);
  EXPECT_EQ(e.getTileMemoryUsed(2), align8(4) + state + 24);
  EXPECT_EQ(e.getTileMemoryUsed(3), 24u);
}

TEST(EngineMemory, ReportedUseAgreesWithOutOfMemoryCheck) {
  // 12 bytes then 1012 bytes: 1024 bytes of data but 1028 bytes of tile memory once the
  // second variable is 8-byte aligned, which does not fit a 1024-byte tile.
  Device device = deviceWithTileBytes(4, 1024);
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {3}, "a");
  Tensor b = graph.addVariable(FLOAT, {253}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 0);
  expectThrowWithMessage<graph_memory_allocation_error>([&] { Engine e(graph, Sequence()); },
                                                        {"tile 0", "1028 bytes needed"});
  Engine e(graph, Sequence(), {{"debug.allowOutOfMemory", "true"}});
  EXPECT_EQ(e.getTileMemoryUsed(0), align8(12) + 1012);
}
