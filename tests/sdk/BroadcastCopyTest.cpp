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

// Strided views (a column, every other row, a transpose) gather into strided copy rows, read
// and written in order; each must land exactly where element-by-element copies would.
TEST(StridedCopy, ColumnsRowsAndTransposesAcrossTilesMatchAHostLoop) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(4, 6);
  Graph graph(device.getTarget());
  Tensor grid = graph.addVariable(FLOAT, {12, 5}, "grid"); // rows 0-5 on tile 0, 6-11 on tile 1
  graph.setTileMapping(grid.slice(0, 6, 0), 0);
  graph.setTileMapping(grid.slice(6, 12, 0), 1);
  Tensor column = graph.addVariable(FLOAT, {12}, "column");
  graph.setTileMapping(column, 2);
  Tensor everyOther = graph.addVariable(FLOAT, {6, 5}, "everyOther");
  graph.setTileMapping(everyOther, 3);
  Tensor transposed = graph.addVariable(FLOAT, {5, 12}, "transposed");
  graph.setTileMapping(transposed, 2);
  Tensor gathered = graph.addVariable(FLOAT, {12}, "gathered"); // a vertex reads a column
  graph.setTileMapping(gathered, 3);
  ComputeSet cs = graph.addComputeSet("copyColumn");
  VertexRef v =
      graph.addVertex(cs, "CopyFloats", {{"in", grid.slice(3, 4, 1).flatten()}, {"out", gathered}});
  graph.setTileMapping(v, 3);
  graph.createHostWrite("grid", grid);
  graph.createHostRead("column", column);
  graph.createHostRead("everyOther", everyOther);
  graph.createHostRead("transposed", transposed);
  graph.createHostRead("gathered", gathered);
  Sequence prog{Copy(grid.slice(1, 2, 1).flatten(), column), Copy(grid.subSample(2, 0), everyOther),
                Copy(grid.transpose(), transposed), Execute(cs)};
  Engine engine(graph, prog);
  engine.load(device);
  std::vector<float> host(60);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = 0.5f * float(i) - 7.0f;
  engine.writeTensor("grid", host.data(), host.data() + host.size());
  engine.run();
  std::vector<float> gotColumn(12), gotEveryOther(30), gotTransposed(60), gotGathered(12);
  engine.readTensor("column", gotColumn.data(), gotColumn.data() + 12);
  engine.readTensor("everyOther", gotEveryOther.data(), gotEveryOther.data() + 30);
  engine.readTensor("transposed", gotTransposed.data(), gotTransposed.data() + 60);
  engine.readTensor("gathered", gotGathered.data(), gotGathered.data() + 12);
  for (int r = 0; r < 12; ++r) {
    EXPECT_EQ(gotColumn[r], host[r * 5 + 1]) << r;
    EXPECT_EQ(gotGathered[r], host[r * 5 + 3]) << r;
    for (int c = 0; c < 5; ++c) {
      EXPECT_EQ(gotTransposed[c * 12 + r], host[r * 5 + c]) << r << "," << c;
      if (r % 2 == 0) {
        EXPECT_EQ(gotEveryOther[(r / 2) * 5 + c], host[r * 5 + c]) << r << "," << c;
      }
    }
  }
}

// A strided copy whose source and destination overlap on one tile: the rows run in order, as
// the element copies they replace would (Poplar stages overlapping copies; so must we).
TEST(StridedCopy, OverlappingShiftOnOneTileMatchesAHostLoop) {
  Device device = enginetest::smallDevice(1, 6);
  Graph graph(device.getTarget());
  Tensor grid = graph.addVariable(FLOAT, {6, 4}, "grid");
  graph.setTileMapping(grid, 0);
  graph.createHostWrite("grid", grid);
  graph.createHostRead("grid", grid);
  // Column 0 into column 1 of the same rows.
  Sequence prog{Copy(grid.slice(0, 1, 1), grid.slice(1, 2, 1))};
  Engine engine(graph, prog);
  engine.load(device);
  std::vector<float> host(24);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = float(i);
  engine.writeTensor("grid", host.data(), host.data() + host.size());
  engine.run();
  std::vector<float> got(24);
  engine.readTensor("grid", got.data(), got.data() + 24);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(got[r * 4 + c], c == 1 ? host[r * 4] : host[r * 4 + c]) << r << "," << c;
}
