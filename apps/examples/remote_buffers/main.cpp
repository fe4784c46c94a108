// Remote buffers: rows of data kept in the host's (streaming) memory and paged into tile memory
// one row, or a few chosen rows, at a time.
//
// The buffer "layers" holds four rows of four floats, filled by the host. Program 0 walks the
// rows with a counter tensor as the offset — the row is chosen when the copy runs — printing
// each and adding it into a running sum, then stores the sum in a second, one-row buffer.
// Program 1 loads rows 0 and 3 with one copy (a two-element offset tensor) and stores them back
// swapped. Program 2 loads the row the host asks for; asking for a row the buffer does not have
// stops the run with an error naming the buffer.
#include <iostream>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr std::size_t numRows = 4, rowLength = 4;

void printRows(Engine &engine) {
  std::vector<float> row(rowLength);
  for (std::size_t r = 0; r < numRows; ++r) {
    engine.copyFromRemoteBuffer("layers", row.data(), r);
    std::cout << "  layers[" << r << "] =";
    for (float v : row)
      std::cout << ' ' << v;
    std::cout << '\n';
  }
}

} // namespace

int main() {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  std::cout << "remote buffers supported: " << (device.supportsRemoteBuffers() ? "yes" : "no")
            << '\n';
  Graph graph(device.getTarget());
  popops::addCodelets(graph);

  // numRows rows of rowLength floats in host memory, and a one-row buffer for the result.
  RemoteBuffer layers = graph.addRemoteBuffer("layers", FLOAT, rowLength, numRows);
  RemoteBuffer sums = graph.addRemoteBuffer("sums", FLOAT, rowLength);

  Tensor row = graph.addVariable(FLOAT, {rowLength}, "row");
  Tensor sum = graph.addVariable(FLOAT, {rowLength}, "sum");
  Tensor pair = graph.addVariable(FLOAT, {2, rowLength}, "pair");
  Tensor counter = graph.addVariable(UNSIGNED_INT, {}, "counter");
  Tensor pick = graph.addVariable(UNSIGNED_INT, {}, "pick");
  graph.setTileMapping(row, 0);
  graph.setTileMapping(sum, 1);
  graph.setTileMapping(pair[0], 2);
  graph.setTileMapping(pair[1], 3);
  graph.setTileMapping(counter, 0);
  graph.setTileMapping(pick, 0);
  Tensor zeros = graph.addConstant(FLOAT, {rowLength}, 0.0f);
  Tensor zero = graph.addConstant(UNSIGNED_INT, {}, 0u);
  Tensor firstAndLast = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {0u, 3u});
  Tensor lastAndFirst = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {3u, 0u});
  graph.setTileMapping(zeros, 1);
  graph.setTileMapping(zero, 0);
  graph.setTileMapping(firstAndLast, 2);
  graph.setTileMapping(lastAndFirst, 3);
  graph.createHostWrite("pick", pick);
  graph.createHostRead("row", row);

  // Program 0: sum every row, paging them in one at a time.
  Sequence sumRows{Copy(zeros, sum), Copy(zero, counter)};
  Sequence step{Copy(layers, row, counter), PrintTensor("row", row)};
  popops::addInPlace(graph, sum, row, step, "accumulate");
  popops::addInPlace(graph, counter, 1u, step, "next");
  sumRows.add(Repeat(numRows, step));
  sumRows.add(Copy(sum, sums));

  // Program 1: swap the first and last rows with one load and one store of two rows.
  Sequence swap{Copy(layers, pair, firstAndLast), Copy(pair, layers, lastAndFirst)};

  // Program 2: load the row the host picked.
  Sequence load{Copy(layers, row, pick, {"pickRow"})};

  Engine engine(graph, {sumRows, swap, load});
  engine.load(device);

  // The host fills the rows: row r holds 10r, 10r + 1, ...
  for (std::size_t r = 0; r < numRows; ++r) {
    std::vector<float> values(rowLength);
    for (std::size_t c = 0; c < rowLength; ++c)
      values[c] = static_cast<float>(10 * r + c);
    engine.copyToRemoteBuffer(values.data(), "layers", r);
  }

  std::cout << "program 0: page every row in and sum them\n";
  engine.run(0);
  std::vector<float> total(rowLength);
  engine.copyFromRemoteBuffer("sums", total.data(), 0);
  std::cout << "  sums[0] =";
  for (float v : total)
    std::cout << ' ' << v;
  std::cout << '\n';

  std::cout << "program 1: swap rows 0 and 3\n";
  engine.run(1);
  printRows(engine);

  std::cout << "program 2: load the row the host picks\n";
  for (unsigned r : {2u, 7u}) {
    engine.writeTensor("pick", &r, &r + 1);
    try {
      engine.run(2);
      std::vector<float> got(rowLength);
      engine.readTensor("row", got.data(), got.data() + got.size());
      std::cout << "  row " << r << ":";
      for (float v : got)
        std::cout << ' ' << v;
      std::cout << '\n';
    } catch (const application_runtime_error &e) {
      std::cout << "  row " << r << ": " << e.what() << '\n';
    }
  }
  return 0;
}
