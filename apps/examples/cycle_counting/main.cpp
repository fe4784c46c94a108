// Cycle counting: time programs in IPU cycles with cycleCount and cycleStamp.
//
// A vector spread over four tiles is updated in place by one vertex per tile; the body (that
// compute set and a copy between tiles) runs in a Repeat. cycleCount wraps the loop and reports
// the cycles it took; two cycleStamps read the clock before and after it. On Tessera these
// cycles are the IPU cost model's estimates of the steps the engine runs (the vertices' cycle
// estimates, exchange bytes, syncs), added up as it runs them, so they are the same on every
// machine and for any number of host threads; on an IPU they would be measured.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <poplar/CycleCount.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

/// A 2 × UNSIGNED_INT counter read from the engine: the low word, then the high word.
std::uint64_t readCycles(Engine &engine, const char *handle) {
  std::uint32_t words[2];
  engine.readTensor(handle, words, words + 2);
  return std::uint64_t(words[0]) | (std::uint64_t(words[1]) << 32);
}

} // namespace

int main() {
  constexpr unsigned tiles = 4, perTile = 32, trips = 10;
  IPUModel model;
  model.tilesPerIPU = tiles;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  graph.addCodelets("codelets.cpp");

  Tensor x = graph.addVariable(FLOAT, {tiles, perTile}, "x");
  ComputeSet step = graph.addComputeSet("halveAndAddOne");
  for (unsigned t = 0; t < tiles; ++t) {
    graph.setTileMapping(x[t], t);
    VertexRef v = graph.addVertex(step, "HalveAndAddOne", {{"data", x[t]}});
    graph.setTileMapping(v, t);
    // What one worker needs for the vertex, in cycles: the cost model prices the vertex with it.
    graph.setPerfEstimate(v, 4 * perTile);
  }
  std::vector<float> zeros(tiles * perTile, 0.0f);
  graph.setInitialValue(x, ArrayRef<float>(zeros));

  // The loop body: the update on every tile, then tile 0's row copied to tile 1 (an exchange).
  Sequence body{Execute(step), Copy(x[0], x[1])};

  Sequence loop{Repeat(trips, body)};
  // cycleCount replaces `loop` by a program that runs it and then writes its cycles.
  Tensor loopCycles = cycleCount(graph, loop, 0, SyncType::INTERNAL, "loopCycles");

  Sequence prog;
  Tensor before = cycleStamp(graph, prog, 0, SyncType::INTERNAL, "before");
  prog.add(loop);
  Tensor after = cycleStamp(graph, prog, 0, SyncType::INTERNAL, "after");
  graph.createHostRead("loopCycles", loopCycles);
  graph.createHostRead("before", before);
  graph.createHostRead("after", after);
  graph.createHostRead("x", x);

  // Program 1, the body alone, is only there to ask the cost model what one pass costs.
  Engine engine(graph, {prog, body});
  engine.load(device);
  const std::uint64_t onePass = engine.estimateProgramCycles(1);
  std::printf("one pass of the body: %llu cycles (the cost model's estimate)\n",
              static_cast<unsigned long long>(onePass));

  for (int run = 1; run <= 2; ++run) {
    engine.run(0);
    const std::uint64_t count = readCycles(engine, "loopCycles");
    const std::uint64_t from = readCycles(engine, "before"), to = readCycles(engine, "after");
    std::printf("run %d: cycleCount of Repeat(%u, body) = %llu cycles (%u x %llu)\n", run, trips,
                static_cast<unsigned long long>(count), trips,
                static_cast<unsigned long long>(count / trips));
    std::printf("run %d: cycleStamps %llu -> %llu (%llu cycles apart)\n", run,
                static_cast<unsigned long long>(from), static_cast<unsigned long long>(to),
                static_cast<unsigned long long>(to - from));
  }
  const double hz = device.getTarget().getTileClockFrequency();
  std::printf("at %.0f MHz, one loop takes %.2f us\n", hz / 1e6,
              static_cast<double>(readCycles(engine, "loopCycles")) / hz * 1e6);

  std::vector<float> result(tiles * perTile);
  engine.readTensor("x", result.data(), result.data() + result.size());
  std::printf("x[2][0] after two runs: %.6f (converging to 2)\n", result[2 * perTile]);
  return 0;
}
