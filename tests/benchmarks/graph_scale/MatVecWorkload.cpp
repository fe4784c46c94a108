#include "MatVecWorkload.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poputil/TileMapping.hpp>

namespace graph_scale {

using namespace poplar;
using namespace poplar::program;

namespace {

/// The matrix-vector example's dot product (apps/examples/matrix_vector, applied here to a block
/// of a row) and this bench's sum of a row's partial products.
void addMatVecCodelets(Graph &graph) {
  graph.addCodelets(GRAPH_SCALE_DOT_CODELET_FILE);
  graph.addCodelets(GRAPH_SCALE_CODELET_FILE);
}


using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double peakRssMiB() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

IPUModel modelOf(const MatVecConfig &config) {
  IPUModel model;
  model.tilesPerIPU = config.tiles;
  return model;
}

OptionFlags engineOptions(const MatVecConfig &config) {
  // Honest numbers: never answer a compile from (or spend time writing) the executable cache.
  OptionFlags options{{"executableCache.enable", "false"}};
  if (config.hostThreads)
    options.set("target.hostThreads", std::to_string(config.hostThreads));
  return options;
}

// Deterministic inputs in [0, 1): sums of positive terms, so a relative check is meaningful.
float matrixValue(std::size_t r, std::size_t c) {
  return static_cast<float>((r * 7919 + c * 104729) % 1024) / 1024.0f;
}
float vectorValue(std::size_t c) { return static_cast<float>((c * 613 + 11) % 512) / 512.0f; }

struct BuiltGraph {
  Graph graph;
  Sequence program;
  std::size_t vertices = 0;
};

// The tutorial's program: each row's dot product cut into `columnBlocks` partial products (one
// vertex each, on the row's tile, reading its block of x wherever x lives), then a vertex per
// row summing its partials into y.
void buildMatVec(const MatVecConfig &config, BuiltGraph &b) {
  Graph &graph = b.graph;
  const std::size_t rows = config.rows, cols = config.cols, blocks = config.columnBlocks;
  const std::size_t blockSize = (cols + blocks - 1) / blocks;
  const unsigned numTiles = graph.getTarget().getNumTiles();
  auto tileOf = [&](std::size_t r) { return static_cast<unsigned>(r % numTiles); };

  Tensor matrix = graph.addVariable(FLOAT, {rows, cols}, "matrix");
  Tensor x = graph.addVariable(FLOAT, {cols}, "x");
  Tensor partials = graph.addVariable(FLOAT, {rows, blocks}, "partials");
  Tensor y = graph.addVariable(FLOAT, {rows}, "y");
  for (std::size_t r = 0; r < rows; ++r) {
    graph.setTileMapping(matrix[r], tileOf(r));
    graph.setTileMapping(partials[r], tileOf(r));
    graph.setTileMapping(y[r], tileOf(r));
  }
  if (config.placement == VectorPlacement::Spread)
    poputil::mapTensorLinearly(graph, x, 1, 1); // one element per tile
  else
    graph.setTileMapping(x, 0);

  ComputeSet dots = graph.addComputeSet("partialDotProducts");
  ComputeSet sums = graph.addComputeSet("rowSums");
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < blocks; ++k) {
      const std::size_t begin = std::min(cols, k * blockSize);
      const std::size_t end = std::min(cols, begin + blockSize);
      VertexRef v = graph.addVertex(dots, "DotProductVertex",
                                    {{"row", matrix[r].slice(begin, end)},
                                     {"vec", x.slice(begin, end)},
                                     {"out", partials[r][k]}});
      graph.setTileMapping(v, tileOf(r));
    }
    VertexRef s = graph.addVertex(sums, "RowSum", {{"partials", partials[r]}, {"out", y[r]}});
    graph.setTileMapping(s, tileOf(r));
  }
  b.vertices = rows * (blocks + 1);

  DataStream matrixIn = graph.addHostToDeviceFIFO("matrix", FLOAT, rows * cols);
  DataStream xIn = graph.addHostToDeviceFIFO("x", FLOAT, cols);
  DataStream yOut = graph.addDeviceToHostFIFO("y", FLOAT, rows);
  b.program = Sequence{Copy(matrixIn, matrix.flatten()), Copy(xIn, x), Execute(dots), Execute(sums),
                       Copy(y, yOut)};
}

// Runs `engine` once on generated inputs and returns the largest relative error of y against
// a double-precision host loop; throws when any row is off by more than 1e-3.
double runAndCheck(Engine &engine, const MatVecConfig &config, double &runSeconds) {
  const std::size_t rows = config.rows, cols = config.cols;
  std::vector<float> a(rows * cols), x(cols), y(rows, -1.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      a[r * cols + c] = matrixValue(r, c);
  for (std::size_t c = 0; c < cols; ++c)
    x[c] = vectorValue(c);
  engine.connectStream("matrix", a.data());
  engine.connectStream("x", x.data());
  engine.connectStream("y", y.data());
  const auto start = Clock::now();
  engine.run(0);
  runSeconds = secondsSince(start);

  double worst = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    double expected = 0; // y[r] = sum over c of a[r][c] * x[c]
    for (std::size_t c = 0; c < cols; ++c)
      expected += static_cast<double>(a[r * cols + c]) * x[c];
    const double error = std::abs(y[r] - expected) / std::max(std::abs(expected), 1e-30);
    if (!(error <= 1e-3)) {
      std::ostringstream msg;
      msg << "matvec: y[" << r << "] = " << y[r] << " but the host loop gives " << expected
          << " (relative error " << error << " > 1e-3)";
      throw std::runtime_error(msg.str());
    }
    worst = std::max(worst, error);
  }
  return worst;
}

} // namespace

MatVecMeasurement measureMatVec(const MatVecConfig &config) {
  MatVecMeasurement m;
  const IPUModel model = modelOf(config);
  const OptionFlags options = engineOptions(config);
  std::string bytes;
  {
    BuiltGraph b{Graph(model.createTarget()), {}, 0};
    auto start = Clock::now();
    addMatVecCodelets(b.graph);
    m.codeletSeconds = secondsSince(start);

    start = Clock::now();
    buildMatVec(config, b);
    m.buildSeconds = secondsSince(start);
    m.vertices = b.vertices;

    start = Clock::now();
    Executable exe = compileGraph(b.graph, {b.program}, options);
    m.compileSeconds = secondsSince(start);
    m.compilePeakMiB = peakRssMiB();
    if (config.stopAfterCompile)
      return m;

    start = Clock::now();
    std::ostringstream out;
    exe.serialize(out);
    bytes = std::move(out).str();
    m.serializeSeconds = secondsSince(start);
    m.executableBytes = bytes.size();
    m.serializePeakMiB = peakRssMiB();
  } // the graph and the compiled executable are gone: the warm start has only the bytes

  const Device device = model.createDevice();
  auto start = Clock::now();
  std::optional<Engine> engine;
  {
    std::istringstream in(std::move(bytes));
    engine.emplace(Executable::deserialize(in), options);
  }
  engine->load(device);
  m.warmStartSeconds = secondsSince(start);

  m.maxRelativeError = runAndCheck(*engine, config, m.runSeconds);
  return m;
}

void warmCodeletCache() {
  Graph graph(IPUModel().createTarget());
  addMatVecCodelets(graph);
}

} // namespace graph_scale
