#include "MatVec.hpp"

#include <string>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>

namespace matvec {

using namespace poplar;
using namespace poplar::program;

std::vector<float> multiply(const Device &device, std::size_t rows, std::size_t cols,
                            const std::vector<float> &a, const std::vector<float> &x,
                            unsigned hostThreads) {
  Graph graph(device.getTarget());
  // Compiled on first use, then loaded from the codelet cache.
  graph.addCodelets(MATVEC_CODELET_FILE);
  const unsigned numTiles = graph.getTarget().getNumTiles();

  Tensor matrix = graph.addVariable(FLOAT, {rows, cols}, "matrix");
  Tensor in = graph.addVariable(FLOAT, {cols}, "x");
  Tensor out = graph.addVariable(FLOAT, {rows}, "y");
  // Row r lives on tile r mod numTiles; the vector is spread linearly and exchanged to rows.
  for (std::size_t r = 0; r < rows; ++r) {
    graph.setTileMapping(matrix[r], static_cast<unsigned>(r % numTiles));
    graph.setTileMapping(out[r], static_cast<unsigned>(r % numTiles));
  }
  poputil::mapTensorLinearly(graph, in);

  ComputeSet cs = graph.addComputeSet("dotProducts");
  for (std::size_t r = 0; r < rows; ++r) {
    VertexRef v =
        graph.addVertex(cs, "DotProductVertex", {{"row", matrix[r]}, {"vec", in}, {"out", out[r]}});
    graph.setTileMapping(v, static_cast<unsigned>(r % numTiles));
  }

  DataStream matrixStream = graph.addHostToDeviceFIFO("matrix", FLOAT, rows * cols);
  DataStream inStream = graph.addHostToDeviceFIFO("x", FLOAT, cols);
  DataStream outStream = graph.addDeviceToHostFIFO("y", FLOAT, rows);
  Sequence prog{Copy(matrixStream, matrix.flatten()), Copy(inStream, in), Execute(cs),
                Copy(out, outStream)};

  OptionFlags opts;
  if (hostThreads)
    opts.set("target.hostThreads", std::to_string(hostThreads));
  Engine engine(graph, prog, opts);
  engine.load(device);
  std::vector<float> y(rows);
  engine.connectStream("matrix", const_cast<float *>(a.data()));
  engine.connectStream("x", const_cast<float *>(x.data()));
  engine.connectStream("y", y.data());
  engine.run(0);
  return y;
}

} // namespace matvec
