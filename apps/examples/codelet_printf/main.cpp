// printf from vertices and the IPU vector types.
//
// Four tiles each hold a row of a 4×6 matrix and a row of halves. One compute set takes the dot
// product of every row with x (float2 arithmetic), another scales each row of halves (half2
// arithmetic); every vertex prints what it did. The engine runs tiles on four host threads, yet
// what the vertices print comes out in the same order every time: by tile, then by vertex, then
// in the order of the calls, each compute set's output before the next step's.
#include <cstdio>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/HalfFloat.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>

using namespace poplar;
using namespace poplar::program;

int main() {
  constexpr unsigned rows = 4, cols = 6, halves = 4;
  IPUModel model;
  model.tilesPerIPU = rows;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  graph.addCodelets("codelets.cpp");

  Tensor matrix = graph.addVariable(FLOAT, {rows, cols}, "matrix");
  Tensor x = graph.addVariable(FLOAT, {cols}, "x");
  Tensor dots = graph.addVariable(FLOAT, {rows}, "dots");
  Tensor h = graph.addVariable(HALF, {rows, halves}, "h");
  std::vector<float> m(rows * cols), xs(cols);
  std::vector<half> hs(rows * halves);
  for (unsigned i = 0; i < rows * cols; ++i)
    m[i] = static_cast<float>(i);
  for (unsigned c = 0; c < cols; ++c)
    xs[c] = static_cast<float>(c + 1);
  for (unsigned i = 0; i < rows * halves; ++i)
    hs[i] = half(0.25f * static_cast<float>(i));
  graph.setInitialValue(matrix, ArrayRef<float>(m));
  graph.setInitialValue(x, ArrayRef<float>(xs));
  graph.setInitialValue(h, ArrayRef<half>(hs));
  graph.setTileMapping(x, 0); // tiles 1-3 receive x through the exchange

  ComputeSet dotSet = graph.addComputeSet("rowDots");
  ComputeSet scaleSet = graph.addComputeSet("scaleHalves");
  // Vertices are added from the last tile to the first: the output is in tile order anyway.
  for (unsigned r = rows; r-- > 0;) {
    graph.setTileMapping(matrix[r], r);
    graph.setTileMapping(dots[r], r);
    graph.setTileMapping(h[r], r);
    VertexRef dot =
        graph.addVertex(dotSet, "RowDot", {{"row", matrix[r]}, {"x", x}, {"dot", dots[r]}});
    graph.setInitialValue(dot["rowIndex"], r);
    graph.setTileMapping(dot, r);
    VertexRef scale = graph.addVertex(scaleSet, "ScaleHalves", {{"data", h[r]}});
    graph.setInitialValue(scale["factor"], static_cast<float>(r + 1));
    graph.setTileMapping(scale, r);
  }

  Sequence prog{Execute(dotSet), PrintTensor("dots", dots), Execute(scaleSet),
                PrintTensor("halves", h)};
  Engine engine(graph, prog, {{"target.hostThreads", "4"}});
  engine.load(device); // vertex printf goes to std::cout, as PrintTensor does by default
  engine.run(0);
  std::printf("done\n");
  return 0;
}
