// Copies and exchanges of broadcast and upsampled views (gathered as repeated copies).
#include <gtest/gtest.h>

#include <vector>

#include <poplar/Engine.hpp>
#include <poputil/TileMapping.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

TEST(BroadcastCopy, RowAndElementBroadcastsAcrossTilesMatchAHostLoop) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(8, 6);
  Graph graph(device.getTarget());
  Tensor row = graph.addVariable(FLOAT, {5}, "row");
  graph.setTileMapping(row, 2);
  Tensor rows = graph.addVariable(FLOAT, {7, 5}, "rows");   // row repeated 7 times
  Tensor elems = graph.addVariable(FLOAT, {5, 3}, "elems"); // each element 3 times
  Tensor summed = graph.addVariable(FLOAT, {}, "summed");   // a vertex reads a broadcast
  poputil::mapTensorLinearly(graph, rows, 1, 1);
  poputil::mapTensorLinearly(graph, elems, 1, 1);
  graph.setTileMapping(summed, 6);
  ComputeSet cs = graph.addComputeSet("sumBroadcast");
  VertexRef v = graph.addVertex(cs, "Sum", {{"in", row.broadcast(4, 0)}, {"out", summed}});
  graph.setTileMapping(v, 6);
  graph.createHostWrite("row", row);
  graph.createHostRead("rows", rows);
  graph.createHostRead("elems", elems);
  graph.createHostRead("summed", summed);
  Sequence prog{Copy(row.expand({0}).broadcast(7, 0), rows),
                Copy(row.expand({1}).broadcast(3, 1), elems), Execute(cs)};
  Engine engine(graph, prog);
  engine.load(device);
  const std::vector<float> host = {1.5f, -2.0f, 3.25f, 4.0f, -0.5f};
  engine.writeTensor("row", host.data(), host.data() + host.size());
  engine.run();
  std::vector<float> gotRows(35), gotElems(15);
  float gotSum = 0;
  engine.readTensor("rows", gotRows.data(), gotRows.data() + 35);
  engine.readTensor("elems", gotElems.data(), gotElems.data() + 15);
  engine.readTensor("summed", &gotSum, &gotSum + 1);
  float expectSum = 0;
  for (int k = 0; k < 4; ++k)
    for (float x : host)
      expectSum += x;
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < 5; ++c)
      EXPECT_EQ(gotRows[r * 5 + c], host[c]) << r << "," << c;
  for (int e = 0; e < 5; ++e)
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(gotElems[e * 3 + k], host[e]) << e << "," << k;
  EXPECT_EQ(gotSum, expectSum);
}
