// The IPU cost model through the Engine's graph profile: ratios, not absolute cycles.
#include <gtest/gtest.h>

#include <sstream>

#include "ProfileTestGraphs.hpp"

using namespace profiletest;

namespace {

/// Compute cycles of one compute set holding one vertex of `type` over n elements.
std::uint64_t oneVertexCycles(const char *type, std::size_t n, bool load = true,
                              std::optional<std::uint64_t> perf = std::nullopt) {
  registerVertices();
  Device device = smallDevice(1);
  Graph graph(device.getTarget());
  ComputeSet cs = graph.addComputeSet("cs");
  VertexRef v;
  if (std::string(type) == "profiletest::DenseRow") {
    Tensor in = graph.addVariable(FLOAT, {n}, "in");
    Tensor w = graph.addVariable(FLOAT, {n}, "w");
    Tensor out = graph.addVariable(FLOAT, {}, "out");
    graph.setTileMapping(in, 0);
    graph.setTileMapping(w, 0);
    graph.setTileMapping(out, 0);
    v = graph.addVertex(cs, type, {{"in", in}, {"weights", w}, {"out", out}});
  } else {
    Tensor d = graph.addVariable(FLOAT, {n}, "d");
    graph.setTileMapping(d, 0);
    v = graph.addVertex(cs, type, {{"data", d}});
  }
  graph.setTileMapping(v, 0);
  if (perf)
    graph.setPerfEstimate(v, *perf);
  Engine engine(graph, Execute(cs));
  if (load)
    engine.load(device);
  return engine.getGraphProfile().computeSets.at(0).computeCycles;
}

} // namespace

TEST(CostModel, VertexWithTwiceTheElementsCostsTwiceAsMuch) {
  const auto small = oneVertexCycles("profiletest::DenseRow", 100);
  const auto large = oneVertexCycles("profiletest::DenseRow", 200);
  ASSERT_GT(small, 0u);
  EXPECT_EQ(large, 2 * small); // cycleEstimate() = 2 × weights: exactly linear
}

TEST(CostModel, DefaultEstimateScalesWithFieldElements) {
  const auto small = oneVertexCycles("profiletest::HalveNoEstimate", 1000);
  const auto large = oneVertexCycles("profiletest::HalveNoEstimate", 2000);
  const double ratio = static_cast<double>(large) / static_cast<double>(small);
  EXPECT_GT(ratio, 1.9);
  EXPECT_LT(ratio, 2.01);
}

TEST(CostModel, SetPerfEstimateOverridesTheVertexClass) {
  const auto plain = oneVertexCycles("profiletest::DenseRow", 100, true, 1000);
  const auto twice = oneVertexCycles("profiletest::DenseRow", 100, true, 2000);
  EXPECT_EQ(twice, 2 * plain);
  EXPECT_NE(plain, oneVertexCycles("profiletest::DenseRow", 100));
}

TEST(CostModel, VertexClassEstimatesApplyOnceLoaded) {
  // Before load only the default (from element counts) is known; after, cycleEstimate().
  const auto before = oneVertexCycles("profiletest::DenseRow", 1000, false);
  const auto after = oneVertexCycles("profiletest::DenseRow", 1000, true);
  EXPECT_NE(before, after);
}

TEST(CostModel, LargerMatrixVectorCostsMoreCycles) {
  // The same dense layer, twice the rows per tile and twice the inputs.
  auto layerCycles = [](unsigned rows, unsigned cols) {
    registerVertices();
    Device device = smallDevice(4);
    Graph graph(device.getTarget());
    Tensor x = graph.addVariable(FLOAT, {cols}, "x");
    Tensor w = graph.addVariable(FLOAT, {rows, cols}, "w");
    Tensor y = graph.addVariable(FLOAT, {rows}, "y");
    graph.setTileMapping(x, 0);
    ComputeSet cs = graph.addComputeSet("matVec");
    for (unsigned r = 0; r < rows; ++r) {
      graph.setTileMapping(w[r], r % 4);
      graph.setTileMapping(y[r], r % 4);
      auto v = graph.addVertex(cs, "profiletest::DenseRow",
                               {{"in", x}, {"weights", w[r]}, {"out", y[r]}});
      graph.setTileMapping(v, r % 4);
    }
    Engine engine(graph, Execute(cs));
    engine.load(device);
    return engine.getGraphProfile().computeSets.at(0);
  };
  const auto small = layerCycles(24, 64);
  const auto large = layerCycles(48, 128);
  EXPECT_GT(large.computeCycles, 3 * small.computeCycles); // 2× rows × 2× columns ≈ 4×
  EXPECT_GT(large.exchangeCycles, small.exchangeCycles);
  // x lives on tile 0; tiles 1-3 each receive it once for all their rows: twice the columns.
  EXPECT_EQ(large.exchangeBytes, 2 * small.exchangeBytes);
  EXPECT_GT(large.totalCycles(), small.totalCycles());
}

TEST(CostModel, SlowestTileSetsTheComputeSetCost) {
  registerVertices();
  Device device = smallDevice(2);
  Graph graph(device.getTarget());
  ComputeSet cs = graph.addComputeSet("uneven");
  for (unsigned t = 0; t < 2; ++t) {
    Tensor d = graph.addVariable(FLOAT, {t == 0 ? 100u : 900u}, t == 0 ? "d0" : "d1");
    graph.setTileMapping(d, t);
    auto v = graph.addVertex(cs, "profiletest::HalveNoEstimate", {{"data", d}});
    graph.setTileMapping(v, t);
  }
  Engine engine(graph, Execute(cs));
  engine.load(device);
  EXPECT_EQ(engine.getGraphProfile().computeSets.at(0).slowestTile, 1u);
}

TEST(CostModel, ASenderPaysOnceForBytesManyTilesReceive) {
  // The IPU exchange multicasts: 4 tiles reading the same 64 floats of tile 0 cost tile 0 one
  // send (256 bytes) and each receiver its 256; 4 different slices would cost tile 0 four.
  registerVertices();
  auto exchangeCycles = [](bool sameData) {
    Device device = smallDevice(5);
    Graph graph(device.getTarget());
    Tensor source = graph.addVariable(FLOAT, {4, 64}, "source");
    graph.setTileMapping(source, 0);
    ComputeSet cs = graph.addComputeSet("fanOut");
    for (unsigned t = 1; t <= 4; ++t) {
      Tensor w = graph.addVariable(FLOAT, {64}, std::string("w").append(std::to_string(t)));
      Tensor out = graph.addVariable(FLOAT, {}, std::string("out").append(std::to_string(t)));
      graph.setTileMapping(w, t);
      graph.setTileMapping(out, t);
      auto v =
          graph.addVertex(cs, "profiletest::DenseRow",
                          {{"in", source[sameData ? 0 : t - 1]}, {"weights", w}, {"out", out}});
      graph.setTileMapping(v, t);
    }
    Engine engine(graph, Execute(cs));
    engine.load(device);
    return engine.getGraphProfile().computeSets.at(0).exchangeCycles;
  };
  const unsigned bytesPerCycle = smallDevice(5).getTarget().getExchangeBytesPerCycle();
  EXPECT_EQ(exchangeCycles(true), 256u / bytesPerCycle);
  EXPECT_EQ(exchangeCycles(false), 4 * 256u / bytesPerCycle);
}
