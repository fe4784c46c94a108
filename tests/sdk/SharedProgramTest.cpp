// Sub-programs used in several places are compiled once (as subroutines), and host-handle
// mistakes are explained.
#include <gtest/gtest.h>

#include <poplar/Engine.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

struct CounterGraph {
  Device device = enginetest::smallDevice(2, 6);
  Graph graph{device.getTarget()};
  Tensor counter = graph.addVariable(INT, {}, "counter");
  ComputeSet inc = graph.addComputeSet("increment");
  CounterGraph() {
    testvertices::registerTestVertices();
    graph.setTileMapping(counter, 1);
    VertexRef v = graph.addVertex(inc, "Increment", {{"counter", counter}});
    graph.setTileMapping(v, 1);
    graph.createHostRead("counter", counter);
    graph.createHostWrite("counterIn", counter);
  }
  /// s(0) = Execute(inc); s(k) = Sequence{s(k-1), s(k-1)}: 2^depth increments.
  Program doubling(unsigned depth) {
    Program p = Execute(inc);
    for (unsigned k = 0; k < depth; ++k)
      p = Sequence{p, p};
    return p;
  }
  int read(Engine &e) {
    int v = -1;
    e.readTensor("counter", &v, &v + 1);
    return v;
  }
};

} // namespace

TEST(SharedPrograms, NestedReuseRunsEveryUse) {
  CounterGraph g;
  Engine engine(g.graph, g.doubling(12));
  engine.load(g.device);
  engine.run();
  EXPECT_EQ(g.read(engine), 1 << 12);
}

TEST(SharedPrograms, DeepNestedReuseCompilesOnceNotExponentially) {
  // Inlining every use would need 2^60 steps; compiled once per shared node it needs ~60.
  CounterGraph g;
  Engine engine(g.graph, g.doubling(60));
  EXPECT_EQ(engine.getNumHostThreads() > 0, true);
}

TEST(SharedPrograms, SharedBodyInsideRepeatAndTwoEntryPrograms) {
  CounterGraph g;
  Program body = Sequence{Execute(g.inc), Execute(g.inc)};
  Program twice = Sequence{body, Repeat(3, body), body};
  Engine engine(g.graph, {twice, body});
  engine.load(g.device);
  engine.run(0);
  EXPECT_EQ(g.read(engine), 2 + 3 * 2 + 2);
  engine.run(1);
  EXPECT_EQ(g.read(engine), 12);
}

TEST(HostHandles, ReadingAWriteOnlyHandleSaysHowToFixIt) {
  CounterGraph g;
  Engine engine(g.graph, Sequence{});
  engine.load(g.device);
  int v = 0;
  enginetest::expectThrowWithMessage<stream_connection_error>(
      [&] { engine.readTensor("counterIn", &v, &v + 1); },
      {"'counterIn'", "createHostWrite only", "createHostRead"});
  enginetest::expectThrowWithMessage<stream_connection_error>(
      [&] { engine.writeTensor("counter", &v, &v + 1); },
      {"'counter'", "createHostRead only", "createHostWrite"});
}

TEST(HostHandles, SwappedLettersStillGetASuggestion) {
  CounterGraph g;
  Engine engine(g.graph, Sequence{});
  engine.load(g.device);
  int v = 0;
  enginetest::expectThrowWithMessage<stream_connection_error>(
      [&] { engine.readTensor("conuter", &v, &v + 1); }, {"'conuter'", "did you mean 'counter'"});
}

TEST(HostHandles, EmptyTensorsAcceptEmptyBuffers) {
  // An empty std::vector has a null data(); zero bytes need no buffer.
  CounterGraph g;
  Tensor empty = g.graph.addVariable(FLOAT, {0}, "empty");
  g.graph.setTileMapping(empty, 0);
  g.graph.createHostWrite("emptyIn", empty);
  g.graph.createHostRead("emptyOut", empty);
  Engine engine(g.graph, Sequence{});
  engine.load(g.device);
  std::vector<float> none;
  engine.writeTensor("emptyIn", none.data(), none.data() + none.size());
  engine.readTensor("emptyOut", none.data(), none.data() + none.size());
  enginetest::expectThrowWithMessage<stream_connection_error>(
      [&] { engine.readTensor("counter", none.data(), none.data()); },
      {"'counter'", "holds 0 bytes", "needs 4"});
}
