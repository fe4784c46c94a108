// Variables, constants and copies: the first things a Poplar program does.
//
// Builds a graph with variables spread over four tiles, fills one from a constant and from the
// host, copies between them through tensor views (slices, a transpose, a concatenation, a
// reversal) and prints them with PrintTensor, then reads the result back to the host.
#include <cstdio>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>

using namespace poplar;
using namespace poplar::program;

int main() {
  // A simulated IPU with four tiles is enough to see how tensors are spread.
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());

  // A variable has a type and a shape; every element must be mapped to a tile before the graph
  // is compiled. Here each row of the 3×4 matrix lives on its own tile.
  Tensor matrix = graph.addVariable(FLOAT, {3, 4}, "matrix");
  for (unsigned row = 0; row < 3; ++row)
    graph.setTileMapping(matrix[row], row);

  // A constant's values are part of the compiled graph; it is mapped like a variable.
  Tensor ramp = graph.addConstant<float>(FLOAT, {4}, {1.0f, 2.0f, 3.0f, 4.0f}, "ramp");
  graph.setTileMapping(ramp, 0);

  // A variable the host writes before the program runs, one row on each of tiles 1 and 2.
  Tensor fromHost = graph.addVariable(FLOAT, {2, 4}, "fromHost");
  graph.setTileMapping(fromHost[0], 1);
  graph.setTileMapping(fromHost[1], 2);
  graph.createHostWrite("fromHost", fromHost);

  // The matrix's transpose, stored: its rows are spread over all four tiles.
  Tensor columns = graph.addVariable(FLOAT, {4, 3}, "columns");
  for (unsigned row = 0; row < 4; ++row)
    graph.setTileMapping(columns[row], row);
  graph.createHostRead("columns", columns);

  Sequence prog;
  // Copy the constant into the first row, and the host's two rows into rows 1 and 2.
  prog.add(Copy(ramp, matrix[0]));
  prog.add(Copy(fromHost, matrix.slice(1, 3)));
  prog.add(PrintTensor("matrix", matrix));
  // Views cost nothing: the transpose is a different order of the same elements, and one copy
  // moves them between tiles.
  prog.add(Copy(matrix.transpose(), columns));
  prog.add(PrintTensor("columns", columns));
  // A concatenation of views can be the source of one copy: the last column takes the second
  // halves of rows 1 and 2 of the matrix, read backwards.
  prog.add(Copy(concat(matrix[1].slice(2, 4), matrix[2].slice(2, 4)).reverse(0),
                columns.transpose()[2]));
  prog.add(PrintTensor("last column", columns.transpose()[2]));

  Engine engine(graph, prog);
  engine.load(device);
  const std::vector<float> hostRows = {10, 11, 12, 13, 20, 21, 22, 23};
  engine.writeTensor("fromHost", hostRows.data(), hostRows.data() + hostRows.size());
  engine.run(0);

  std::vector<float> result(12);
  engine.readTensor("columns", result.data(), result.data() + result.size());
  std::printf("read back:");
  for (float v : result)
    std::printf(" %g", v);
  std::printf("\n");
  return 0;
}
