// Tile code computes with subnormal floats flushed to zero, on every host thread, and the
// thread calling Engine::run gets its own floating-point mode back afterwards.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr unsigned kTiles = 8;

/// data[t] *= factor on every tile, with hostThreads host threads.
std::vector<float> scaleOnTiles(const std::vector<float> &data, float factor, unsigned threads) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(kTiles, 1);
  Graph graph(device.getTarget());
  const std::size_t perTile = data.size() / kTiles;
  Tensor x = graph.addVariable(FLOAT, {kTiles, perTile}, "x");
  ComputeSet cs = graph.addComputeSet("scale");
  for (unsigned t = 0; t < kTiles; ++t) {
    graph.setTileMapping(x[t], t);
    VertexRef v = graph.addVertex(cs, "Scale", {{"data", x[t]}});
    graph.setInitialValue(v["factor"], factor);
    graph.setTileMapping(v, t);
  }
  graph.createHostWrite("x", x);
  graph.createHostRead("x", x);
  Engine engine(graph, Execute(cs), {{"target.hostThreads", std::to_string(threads)}});
  engine.load(device);
  engine.writeTensor("x", data.data(), data.data() + data.size());
  engine.run(0);
  std::vector<float> out(data.size());
  engine.readTensor("x", out.data(), out.data() + out.size());
  return out;
}

/// The flushed product: a subnormal operand counts as zero, a subnormal result becomes zero
/// (keeping the sign, as flush-to-zero does).
float flushedProduct(float a, float b) {
  if (std::fpclassify(a) == FP_SUBNORMAL)
    a = std::copysign(0.0f, a);
  float r = static_cast<float>(static_cast<double>(a) * static_cast<double>(b));
  if (std::fpclassify(r) == FP_SUBNORMAL)
    r = std::copysign(0.0f, r);
  return r;
}

std::vector<float> mixedValues() {
  std::vector<float> v;
  for (unsigned i = 0; i < kTiles * 16; ++i) {
    const float scale = float(1 + i % 7);
    const float cases[4] = {
        FLT_MIN * scale,       // normal, but halving it gives a subnormal
        FLT_MIN / (1 + scale), // a subnormal operand
        -FLT_TRUE_MIN * scale, // a tiny negative subnormal (the flush keeps the sign)
        1.5f + float(i),       // an ordinary value
    };
    v.push_back(cases[i % 4]);
  }
  return v;
}

} // namespace

TEST(SubnormalFlush, TileArithmeticFlushesSubnormalOperandsAndResultsOnEveryThreadCount) {
  const std::vector<float> data = mixedValues();
  for (const unsigned threads : {1u, 2u, 3u}) {
    const std::vector<float> out = scaleOnTiles(data, 0.5f, threads);
    for (std::size_t i = 0; i < data.size(); ++i) {
      const float want = flushedProduct(data[i], 0.5f);
      EXPECT_EQ(std::signbit(out[i]), std::signbit(want)) << "element " << i;
      EXPECT_EQ(out[i], want) << "element " << i << " (" << data[i] << " * 0.5) with " << threads
                              << " host threads";
    }
  }
}

TEST(SubnormalFlush, TheCallingThreadKeepsItsOwnModeAfterRun) {
  scaleOnTiles(mixedValues(), 0.5f, 1); // everything ran on this thread
  volatile float smallest = FLT_MIN;
  const float half = smallest * 0.5f;
  EXPECT_EQ(std::fpclassify(half), FP_SUBNORMAL) << "host arithmetic after Engine::run flushed";
}
