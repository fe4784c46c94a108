// End-to-end checks that every layer of the core works together.
#include <gtest/gtest.h>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

TEST(Smoke, SumOfRemoteVectorRunsOnAnotherTile) {
  testvertices::registerTestVertices();
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  Tensor in = graph.addVariable(FLOAT, {100}, "in");
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  poputil::mapTensorLinearly(graph, in, 1, 1);
  graph.setTileMapping(out, 3);
  ComputeSet cs = graph.addComputeSet("sum");
  VertexRef v = graph.addVertex(cs, "Sum", {{"in", in}, {"out", out}});
  graph.setTileMapping(v, 3);
  graph.createHostWrite("in", in);
  graph.createHostRead("out", out);
  Engine engine(graph, Execute(cs));
  engine.load(device);
  std::vector<float> host(100);
  float expect = 0;
  for (int i = 0; i < 100; ++i) {
    host[i] = static_cast<float>(i);
    expect += host[i];
  }
  engine.writeTensor("in", host.data(), host.data() + host.size());
  engine.run();
  float result = -1;
  engine.readTensor("out", &result, &result + 1);
  EXPECT_EQ(result, expect);
}
