// Vertices and codelets: computing on tiles with your own code.
//
// Loads codelets.cpp (two vertex classes) at run time, builds two compute sets — one RowSum
// vertex per row of a matrix, on the row's own tile, then a Scale vertex per row with a
// different factor each — and runs them in sequence: sums first, then the in-place scaling.
#include <cstdio>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>

using namespace poplar;
using namespace poplar::program;

int main() {
  constexpr unsigned rows = 3, cols = 5;
  IPUModel model;
  model.tilesPerIPU = rows;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  // Compiled for the host the first time, then found in the codelet cache by its content.
  graph.addCodelets("codelets.cpp");

  Tensor matrix = graph.addVariable(FLOAT, {rows, cols}, "matrix");
  Tensor sums = graph.addVariable(FLOAT, {rows}, "sums");
  std::vector<float> initial(rows * cols);
  for (unsigned i = 0; i < rows * cols; ++i)
    initial[i] = static_cast<float>(i);
  graph.setInitialValue(matrix, ArrayRef<float>(initial));

  ComputeSet sumSet = graph.addComputeSet("rowSums");
  ComputeSet scaleSet = graph.addComputeSet("scaleRows");
  for (unsigned r = 0; r < rows; ++r) {
    // Data and the vertices that use it share a tile, so no exchange is needed.
    graph.setTileMapping(matrix[r], r);
    graph.setTileMapping(sums[r], r);

    VertexRef sum = graph.addVertex(sumSet, "RowSum", {{"row", matrix[r]}, {"sum", sums[r]}});
    graph.setTileMapping(sum, r);

    VertexRef scale = graph.addVertex(scaleSet, "Scale", {{"data", matrix[r]}});
    graph.setInitialValue(scale["factor"], static_cast<float>(r + 1));
    graph.setTileMapping(scale, r);
  }

  // Compute sets run one after the other; within one, every vertex runs in parallel.
  Sequence prog{Execute(sumSet), Execute(scaleSet), PrintTensor("sums", sums),
                PrintTensor("scaled", matrix)};
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  std::printf("done\n");
  return 0;
}
