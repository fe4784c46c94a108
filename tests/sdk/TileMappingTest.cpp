// Tile mapping: poputil's linear mapping against its closed form, getTileMapping in tensor
// order (complete and incomplete), explicit TileToTensorMapping, virtual graphs and the
// mapping errors.
#include <gtest/gtest.h>

#include <algorithm>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using viewref::smallDevice;

namespace {

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Closed form of the documented rule: every used tile gets the same whole number of grains
/// (enough to cover n over all tiles, but at least minElements), the last used tile the rest.
TileToTensorMapping closedFormLinear(std::size_t n, unsigned tiles, unsigned minElements,
                                     unsigned grain) {
  TileToTensorMapping m(tiles);
  if (n == 0)
    return m;
  const std::size_t grains =
      std::max<std::size_t>({ceilDiv(ceilDiv(n, grain), tiles), ceilDiv(minElements, grain), 1});
  const std::size_t per = grains * grain;
  for (std::size_t tile = 0; tile * per < n; ++tile)
    m[tile].push_back(Interval(tile * per, std::min(n, (tile + 1) * per)));
  return m;
}

std::size_t elementsOn(const std::vector<Interval> &list) {
  std::size_t n = 0;
  for (const auto &iv : list)
    n += iv.size();
  return n;
}

/// Tile of each tensor-order element according to `m` (~0u where unmapped).
std::vector<unsigned> tileOfEach(const TileToTensorMapping &m, std::size_t n) {
  std::vector<unsigned> out(n, ~0u);
  for (unsigned tile = 0; tile < m.size(); ++tile)
    for (const auto &iv : m[tile])
      for (std::size_t i = iv.begin(); i < iv.end(); ++i) {
        EXPECT_EQ(out[i], ~0u) << "element " << i << " mapped twice";
        out[i] = tile;
      }
  return out;
}

class TileMapping : public ::testing::Test {
protected:
  TileMapping() : device(smallDevice(16)), graph(device.getTarget()) {}
  Device device;
  Graph graph;
};

} // namespace

TEST_F(TileMapping, LinearMappingMatchesClosedFormForManyShapes) {
  struct Case {
    std::size_t n;
    unsigned minElements, grain;
  };
  const Case cases[] = {{1, 1, 1},    {16, 1, 1},    {17, 1, 1},     {100, 1, 1}, {100, 0, 4},
                        {100, 30, 4}, {100, 7, 8},   {1000, 128, 2}, {5, 128, 4}, {64, 4, 3},
                        {33, 2, 2},   {250, 16, 16}, {0, 1, 1}};
  for (const auto &c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "n=" << c.n << " min=" << c.minElements << " grain=" << c.grain);
    auto m = poputil::calcLinearTileMapping(graph, {c.n}, c.minElements, c.grain);
    EXPECT_EQ(m, closedFormLinear(c.n, 16, c.minElements, c.grain));
    // Independent properties: full coverage, whole grains except on the last used tile.
    auto tiles = tileOfEach(m, c.n);
    EXPECT_TRUE(std::none_of(tiles.begin(), tiles.end(), [](unsigned t) { return t == ~0u; }));
    unsigned lastUsed = 0;
    for (unsigned tile = 0; tile < m.size(); ++tile)
      if (!m[tile].empty())
        lastUsed = tile;
    for (unsigned tile = 0; tile < lastUsed; ++tile) {
      EXPECT_EQ(elementsOn(m[tile]) % c.grain, 0u);
      EXPECT_GE(elementsOn(m[tile]), std::min<std::size_t>(c.minElements, c.n));
    }
  }
}

TEST_F(TileMapping, LinearMappingUsesTheWholeShape) {
  auto m = poputil::calcLinearTileMapping(graph, {4, 5, 6}, 1, 1);
  EXPECT_EQ(m, closedFormLinear(120, 16, 1, 1));
  // 120 elements over 16 tiles: ceil(120 / 16) = 8 per tile, 15 tiles used.
  EXPECT_EQ(elementsOn(m[0]), 8u);
  EXPECT_TRUE(m[15].empty());
}

TEST_F(TileMapping, DefaultLinearMappingUses128MinimumAndVectorWidthGrain) {
  Tensor f = graph.addVariable(FLOAT, {1000}, "f");
  Tensor h = graph.addVariable(HALF, {3001}, "h");
  EXPECT_EQ(poputil::calcLinearTileMapping(graph, f), closedFormLinear(1000, 16, 128, 2));
  EXPECT_EQ(poputil::calcLinearTileMapping(graph, h), closedFormLinear(3001, 16, 128, 4));
  poputil::mapTensorLinearly(graph, f);
  EXPECT_EQ(graph.getTileMapping(f), closedFormLinear(1000, 16, 128, 2));
  // 1000 floats with at least 128 per tile: 8 tiles.
  EXPECT_EQ(poputil::getTilesUsed(graph, f).size(), 8u);
}

TEST_F(TileMapping, LinearMappingOfGrainZeroIsIndexError) {
  EXPECT_THROW_MSG(index_error, poputil::calcLinearTileMapping(graph, {10}, 1, 0), {"grainSize"});
}

TEST_F(TileMapping, VariableMappingMethodLinearEqualsMapTensorLinearly) {
  Tensor a = graph.addVariable(FLOAT, {40, 20}, VariableMappingMethod::LINEAR, "a");
  EXPECT_EQ(graph.getTileMapping(a), poputil::calcLinearTileMapping(graph, a));
  Tensor b = graph.addVariable(FLOAT, {4}, VariableMappingMethod::NONE, "b");
  bool complete = true;
  graph.getTileMapping(b, &complete);
  EXPECT_FALSE(complete);
}

TEST_F(TileMapping, MapTensorLinearlyOfAViewMapsInTensorOrder) {
  Tensor t = graph.addVariable(FLOAT, {4, 8}, "t");
  Tensor view = t.transpose(); // [8,4]
  poputil::mapTensorLinearly(graph, view, 4, 4);
  // The view's mapping is the linear one over its own element order...
  EXPECT_EQ(graph.getTileMapping(view), closedFormLinear(32, 16, 4, 4));
  // ...so base element (r, c) = view element (c, r) lives on tile (c * 4 + r) / 4 = c.
  auto baseTiles = tileOfEach(graph.getTileMapping(t), 32);
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 8; ++c)
      EXPECT_EQ(baseTiles[r * 8 + c], c) << r << "," << c;
}

TEST_F(TileMapping, GetTileMappingOfAViewIsInViewIndices) {
  Tensor t = graph.addVariable(FLOAT, {12}, "t");
  graph.setTileMapping(t.slice(0, 6), 2);
  graph.setTileMapping(t.slice(6, 12), 5);
  auto m = graph.getTileMapping(t.slice(4, 9).reverse(0)); // base 8,7,6,5,4
  ASSERT_EQ(m.size(), 16u);
  EXPECT_EQ(m[5], (std::vector<Interval>{Interval(0, 3)}));
  EXPECT_EQ(m[2], (std::vector<Interval>{Interval(3, 5)}));
  auto b = graph.getTileMapping(t.slice(4, 8).broadcast(2, 0)); // 4,5,6,7,4,5,6,7
  EXPECT_EQ(b[2], (std::vector<Interval>{Interval(0, 2), Interval(4, 6)}));
  EXPECT_EQ(b[5], (std::vector<Interval>{Interval(2, 4), Interval(6, 8)}));
}

TEST_F(TileMapping, ExplicitTileToTensorMappingRoundTrips) {
  Tensor t = graph.addVariable(FLOAT, {3, 4}, "t");
  TileToTensorMapping want(16);
  want[7] = {Interval(0, 3), Interval(9, 12)};
  want[1] = {Interval(3, 9)};
  graph.setTileMapping(t, want);
  EXPECT_EQ(graph.getTileMapping(t), want);
  // A shorter list than the tile count is fine; mapping a view maps its elements.
  graph.setTileMapping(t.transpose(), TileToTensorMapping{{Interval(0, 3)}});
  auto tiles = tileOfEach(graph.getTileMapping(t), 12);
  EXPECT_EQ(tiles, (std::vector<unsigned>{0, 7, 7, 1, 0, 1, 1, 1, 0, 7, 7, 7}));
}

TEST_F(TileMapping, LaterMappingOverridesPartOfAnEarlierOne) {
  Tensor t = graph.addVariable(FLOAT, {10}, "t");
  graph.setTileMapping(t, 4);
  graph.setTileMapping(t.slice(3, 6), 9);
  auto m = graph.getTileMapping(t);
  EXPECT_EQ(m[4], (std::vector<Interval>{Interval(0, 3), Interval(6, 10)}));
  EXPECT_EQ(m[9], (std::vector<Interval>{Interval(3, 6)}));
}

TEST_F(TileMapping, IncompleteMappingIsReportedByTheBoolForm) {
  Tensor t = graph.addVariable(FLOAT, {10}, "partial");
  graph.setTileMapping(t.slice(2, 5), 3);
  bool complete = true;
  auto m = graph.getTileMapping(t, &complete);
  EXPECT_FALSE(complete);
  EXPECT_EQ(m[3], (std::vector<Interval>{Interval(2, 5)}));
  EXPECT_EQ(elementsOn(m[3]), 3u);
  complete = false;
  graph.getTileMapping(t.slice(2, 5), &complete);
  EXPECT_TRUE(complete);
  // Non-throwing form with requireComplete = false.
  EXPECT_EQ(graph.getTileMapping(t, false), m);
}

TEST_F(TileMapping, IncompleteMappingThrowsNamingTheVariable) {
  Tensor t = graph.addVariable(FLOAT, {10}, "partial");
  graph.setTileMapping(t.slice(0, 9), 0);
  EXPECT_THROW_MSG(invalid_tile_mapping, graph.getTileMapping(t),
                   {"'partial'", "not mapped", "element 9"});
  EXPECT_NO_THROW(graph.getTileMapping(t.slice(0, 9)));
  // The index is in the view's own element order.
  EXPECT_THROW_MSG(invalid_tile_mapping, graph.getTileMapping(t.reverse(0)), {"element 0"});
}

TEST_F(TileMapping, TileOutOfRangeIsInvalidTileMapping) {
  Tensor t = graph.addVariable(FLOAT, {4}, "acts");
  EXPECT_THROW_MSG(invalid_tile_mapping, graph.setTileMapping(t, 16),
                   {"tile 16", "16 tiles", "'acts'"});
  TileToTensorMapping tooMany(17);
  EXPECT_THROW_MSG(invalid_tile_mapping, graph.setTileMapping(t, tooMany), {"17 tiles", "'acts'"});
}

TEST_F(TileMapping, MappingIntervalOutsideTheTensorIsIndexError) {
  Tensor t = graph.addVariable(FLOAT, {4}, "acts");
  TileToTensorMapping m(16);
  m[2] = {Interval(2, 6)};
  EXPECT_THROW_MSG(index_error, graph.setTileMapping(t, m),
                   {"[2, 6)", "tile 2", "'acts'", "4 elements"});
}

TEST_F(TileMapping, EngineRefusesAnUnmappedVariableNamingIt) {
  Tensor ok = graph.addVariable(FLOAT, {4}, "mapped");
  graph.setTileMapping(ok, 0);
  Tensor t = graph.addVariable(FLOAT, {6}, "forgotten");
  graph.setTileMapping(t.slice(0, 2), 1);
  EXPECT_THROW_MSG(invalid_tile_mapping, Engine(graph, program::Sequence{}),
                   {"'forgotten'", "element 2"});
}

TEST_F(TileMapping, TileImbalanceAndTilesUsed) {
  Tensor t = graph.addVariable(FLOAT, {64}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  EXPECT_EQ(poputil::getTileImbalance(graph, t), 0u);
  EXPECT_EQ(poputil::getTilesUsed(graph, t).size(), 16u);
  graph.setTileMapping(t.slice(0, 12), 15); // tile 15 now holds 12 + 4 elements
  EXPECT_EQ(poputil::getTileImbalance(graph, t), 16u - 4u);
  auto used = poputil::getTilesUsed(graph, t);
  EXPECT_EQ(used.front(), 3u);
  EXPECT_EQ(used.back(), 15u);
}

TEST_F(TileMapping, WholeRowTilesKeepsWholeRowsAndDealsOutSpreadOnes) {
  // Graph of 16 tiles. Rows 0-1 sit whole on tiles 5 and 6; rows 2-5 each straddle tiles 0 and
  // 1 (their first elements all on tile 0), so they are dealt out over the 16 tiles: 0, 4, 8, 12.
  Tensor t = graph.addVariable(FLOAT, {6, 8}, "rows");
  graph.setTileMapping(t[0], 5);
  graph.setTileMapping(t[1], 6);
  graph.setTileMapping(t.slice({2, 0}, {6, 4}), 0);
  graph.setTileMapping(t.slice({2, 4}, {6, 8}), 1);
  EXPECT_EQ(poputil::wholeRowTiles(graph, t), (std::vector<unsigned>{5, 6, 0, 4, 8, 12}));
  Tensor unmapped = graph.addVariable(FLOAT, {2, 3}, "unmapped");
  EXPECT_THROW_MSG(invalid_tile_mapping, poputil::wholeRowTiles(graph, unmapped), {"unmapped"});
}

// ---- virtual graphs --------------------------------------------------------------------------

TEST_F(TileMapping, VirtualGraphTileNumbersAreOffset) {
  Graph vg = graph.createVirtualGraph(4, 8);
  EXPECT_EQ(vg.getTarget().getNumTiles(), 4u);
  EXPECT_EQ(vg.tileBase(), 4u);
  Tensor t = vg.addVariable(FLOAT, {8}, "inVirtual");
  vg.setTileMapping(t, 1);
  EXPECT_EQ(vg.getTileMapping(t)[1], (std::vector<Interval>{Interval(0, 8)}));
  // The parent sees the same variable on absolute tile 5.
  EXPECT_EQ(graph.getTileMapping(t)[5], (std::vector<Interval>{Interval(0, 8)}));
  EXPECT_EQ(graph.getDebugStr(t.getVarRegions()[0].var), "inVirtual");
}

TEST_F(TileMapping, NestedVirtualGraphOffsetsAdd) {
  Graph outer = graph.createVirtualGraph(2, 14);
  Graph inner = outer.createVirtualGraph(3, 6);
  EXPECT_EQ(inner.tileBase(), 5u);
  EXPECT_EQ(inner.getTarget().getNumTiles(), 3u);
  Tensor t = graph.addVariable(FLOAT, {9}, "t");
  poputil::mapTensorLinearly(inner, t, 1, 1);
  EXPECT_EQ(poputil::getTilesUsed(graph, t), (std::vector<unsigned>{5, 6, 7}));
  EXPECT_EQ(poputil::getTilesUsed(outer, t), (std::vector<unsigned>{3, 4, 5}));
}

TEST_F(TileMapping, VirtualGraphSeesParentTilesOutsideItAsUnmapped) {
  Graph vg = graph.createVirtualGraph(8, 16);
  Tensor t = graph.addVariable(FLOAT, {4}, "t");
  graph.setTileMapping(t.slice(0, 2), 0);
  graph.setTileMapping(t.slice(2, 4), 9);
  bool complete = true;
  auto m = vg.getTileMapping(t, &complete);
  EXPECT_FALSE(complete);
  EXPECT_EQ(m.size(), 8u);
  EXPECT_EQ(m[1], (std::vector<Interval>{Interval(2, 4)}));
  EXPECT_THROW_MSG(invalid_tile_mapping, vg.setTileMapping(t, 8), {"tile 8", "8 tiles"});
}

TEST_F(TileMapping, BadVirtualGraphRangeIsInvalidTileMapping) {
  EXPECT_THROW_MSG(invalid_tile_mapping, graph.createVirtualGraph(4, 4), {"[4, 4)", "16 tiles"});
  EXPECT_THROW_MSG(invalid_tile_mapping, graph.createVirtualGraph(8, 17), {"[8, 17)"});
}

TEST_F(TileMapping, EngineFromAVirtualGraphIsRefused) {
  Graph vg = graph.createVirtualGraph(0, 8);
  EXPECT_THROW_MSG(graph_program_compilation_error, Engine(vg, program::Sequence{}),
                   {"virtual graph"});
}

TEST_F(TileMapping, VirtualGraphMappingRunsEndToEnd) {
  Graph vg = graph.createVirtualGraph(12, 16);
  Tensor t = vg.addVariable(FLOAT, {10}, "t");
  poputil::mapTensorLinearly(vg, t, 1, 1);
  auto got = viewref::readViews(graph, device, {t}, {t.reverse(0)});
  EXPECT_EQ(got[0], viewref::expectedValues({9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
}
