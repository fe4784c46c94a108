// poputil/VarStructure.hpp: groupings detected on layouts whose grouping is known (and against
// a brute-force search over random mappings), partitionable tensors whose blocks are each one
// contiguous run, the partition walk against naive slicing, and the error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VarStructure.hpp>
#include <poputil/exceptions.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using poputil::poplibs_error;
using viewref::Shape;

namespace {

struct Rig {
  Device device = viewref::smallDevice(4);
  Graph graph{device.getTarget()};
};

/// Brute force: the largest g dividing the innermost dimension for which each aligned group of
/// g consecutive elements is consecutive in one variable and on one tile.
unsigned bruteForceGrouping(const Graph &graph, const Tensor &t) {
  const auto elements = viewref::elementsOf(t);
  std::vector<unsigned> tileOf(elements.size(), ~0u);
  bool complete = true;
  const auto mapping = graph.getTileMapping(t, &complete);
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &iv : mapping[tile])
      for (auto i = iv.begin(); i < iv.end(); ++i)
        tileOf[i] = tile;
  const std::size_t d = t.dim(t.rank() - 1);
  for (std::size_t g = d; g > 1; --g) {
    if (d % g != 0)
      continue;
    bool ok = true;
    for (std::size_t i = 0; ok && i < elements.size(); ++i)
      if (i % g != 0)
        ok = elements[i].first == elements[i - 1].first &&
             elements[i].second == elements[i - 1].second + 1 && tileOf[i] == tileOf[i - 1];
    if (ok)
      return static_cast<unsigned>(g);
  }
  return 1;
}

} // namespace

TEST(PoputilVarStructure, InnermostGroupingOfKnownLayouts) {
  Rig rig;
  // [N][C] held as [C/4][N][4]: groups of 4 channels.
  Tensor grouped = rig.graph.addVariable(FLOAT, {4, 6, 4}).dimShuffle({1, 0, 2}).reshape({6, 16});
  rig.graph.setTileMapping(grouped, 1);
  EXPECT_EQ(poputil::detectInnermostGrouping(rig.graph, grouped), 4u);
  // Contiguous rows, whole rows per tile: the whole row.
  Tensor rows = rig.graph.addVariable(FLOAT, {6, 16});
  for (unsigned r = 0; r < 6; ++r)
    rig.graph.setTileMapping(rows[r], r % 4);
  EXPECT_EQ(poputil::detectInnermostGrouping(rig.graph, rows), 16u);
  // Half rows per tile: 8.
  Tensor halves = rig.graph.addVariable(FLOAT, {6, 16});
  poputil::mapTensorLinearly(rig.graph, halves, 8, 8);
  EXPECT_EQ(poputil::detectInnermostGrouping(rig.graph, halves), 8u);
  // Channels innermost but strided in memory: none.
  Tensor strided = rig.graph.addVariable(FLOAT, {16, 6}).transpose();
  rig.graph.setTileMapping(strided, 0);
  EXPECT_EQ(poputil::detectInnermostGrouping(rig.graph, strided), 1u);
  // An empty tensor has no groups to find.
  EXPECT_EQ(poputil::detectInnermostGrouping(rig.graph, rig.graph.addVariable(FLOAT, {3, 0})), 1u);
}

TEST(PoputilVarStructure, InnermostGroupingMatchesBruteForceOnRandomMappings) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    Rig rig;
    const std::size_t groups = 1 + rng() % 4, g = std::size_t(1) << (rng() % 4),
                      rows = 1 + rng() % 5;
    // [rows][groups * g] held as [groups][rows][g], mapped in random runs of grains.
    Tensor t = rig.graph.addVariable(FLOAT, {groups, rows, g})
                   .dimShuffle({1, 0, 2})
                   .reshape({rows, groups * g});
    const std::size_t grain = std::size_t(1) << (rng() % 5);
    Tensor base = rig.graph.getVariable(t.getVarRegions()[0].var);
    for (std::size_t at = 0; at < base.numElements(); at += grain)
      rig.graph.setTileMapping(base.slice(at, std::min(at + grain, base.numElements())), rng() % 4);
    SCOPED_TRACE(::testing::Message()
                 << "rows " << rows << " groups " << groups << " g " << g << " grain " << grain);
    EXPECT_EQ(poputil::detectInnermostGrouping(rig.graph, t), bruteForceGrouping(rig.graph, t));
  }
}

TEST(PoputilVarStructure, DimGroupingsOfAChannelGroupedLayout) {
  Rig rig;
  // [H=2][W=3][C=16] held as [C/8][H][W][8] on one tile: 8 channels, then whole W rows of
  // groups, then H, then the two channel groups.
  Tensor t =
      rig.graph.addVariable(FLOAT, {2, 2, 3, 8}).dimShuffle({1, 2, 0, 3}).reshape({2, 3, 16});
  rig.graph.setTileMapping(t, 2);
  using G = poputil::GroupingInfo;
  EXPECT_EQ(poputil::detectDimGroupings(rig.graph, t),
            (std::vector<G>{{2, 8}, {1, 3}, {0, 2}, {2, 2}}));
  // A plain contiguous [4][6]: whole rows, then the rows.
  Tensor plain = rig.graph.addVariable(FLOAT, {4, 6});
  rig.graph.setTileMapping(plain, 0);
  EXPECT_EQ(poputil::detectDimGroupings(rig.graph, plain), (std::vector<G>{{1, 6}, {0, 4}}));
  // Spread one element per tile: nothing.
  Tensor spread = rig.graph.addVariable(FLOAT, {2, 2});
  for (unsigned i = 0; i < 4; ++i)
    rig.graph.setTileMapping(spread.flatten().slice(i, i + 1), i);
  EXPECT_TRUE(poputil::detectDimGroupings(rig.graph, spread).empty());
}

TEST(PoputilVarStructure, GroupingOfARankZeroTensorThrows) {
  Rig rig;
  Tensor scalar = rig.graph.addVariable(FLOAT, {}, "s");
  EXPECT_THROW_MSG(poplibs_error, poputil::detectInnermostGrouping(rig.graph, scalar),
                   {"poputil::detectInnermostGrouping", "rank 0"});
  EXPECT_THROW_MSG(poplibs_error, poputil::detectDimGroupings(rig.graph, scalar),
                   {"poputil::detectDimGroupings", "rank 0"});
}

TEST(PoputilVarStructure, PartitionsAreNaiveSlicesWalkedFirstDimensionFastest) {
  Rig rig;
  const Shape shape{5, 7};
  Tensor t = rig.graph.addVariable(FLOAT, shape);
  // Dimension 0: parts of ceil(5/2) = 3 → [0,3) [3,5); dimension 1: ceil(7/4) = 2 →
  // [0,2) [2,4) [4,6) [6,7).
  const std::vector<std::pair<std::size_t, std::size_t>> cuts0{{0, 3}, {3, 5}},
      cuts1{{0, 2}, {2, 4}, {4, 6}, {6, 7}};
  std::vector<std::vector<std::size_t>> seen;
  poputil::iterateTensorPartitions(
      t, {2, 4}, [&](const std::vector<std::size_t> &i, const Tensor &s) {
        seen.push_back(i);
        const auto [b0, e0] = cuts0.at(i[0]);
        const auto [b1, e1] = cuts1.at(i[1]);
        const Shape blockShape{e0 - b0, e1 - b1};
        viewref::expectView(s, blockShape,
                            viewref::onVar(t, viewref::naiveMap(blockShape, [&](const Shape &k) {
                                             return viewref::flatOf(shape, {b0 + k[0], b1 + k[1]});
                                           })));
      });
  const std::vector<std::vector<std::size_t>> order{{0, 0}, {1, 0}, {0, 1}, {1, 1},
                                                    {0, 2}, {1, 2}, {0, 3}, {1, 3}};
  EXPECT_EQ(seen, order);

  // More parts than elements: the extra parts are empty.
  std::vector<std::size_t> sizes;
  poputil::iterateTensorPartitions(
      rig.graph.addVariable(FLOAT, {3}), {5},
      [&](const auto &, const Tensor &s) { sizes.push_back(s.numElements()); });
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 1, 1, 0, 0}));
}

TEST(PoputilVarStructure, PartitionableTensorBlocksAreEachOneContiguousRun) {
  Rig rig;
  struct Case {
    Shape shape, parts;
  };
  const Case cases[] = {{{5, 7}, {2, 4}},       {{10, 20}, {1, 5}}, {{3}, {5}},
                        {{4, 6, 5}, {3, 2, 2}}, {{6}, {1}},         {{2, 3}, {2, 3}}};
  for (const auto &c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.shape) + " in " + ::testing::PrintToString(c.parts));
    Tensor t = poputil::createPartitionableTensor(rig.graph, HALF, c.shape, c.parts, "p");
    EXPECT_EQ(t.shape(), c.shape);
    EXPECT_EQ(t.elementType(), HALF);
    EXPECT_FALSE(t.containsAliases());
    std::set<viewref::Element> covered;
    std::size_t blocks = 0;
    poputil::iterateTensorPartitions(t, c.parts, [&](const auto &, const Tensor &s) {
      if (s.numElements() == 0)
        return;
      ++blocks;
      EXPECT_TRUE(s.isContiguous())
          << "block " << blocks << " is " << s.getVarRegions().size() << " runs";
      for (const auto &e : viewref::elementsOf(s))
        EXPECT_TRUE(covered.insert(e).second);
    });
    EXPECT_EQ(covered.size(), t.numElements());
    bool mapped = true;
    rig.graph.getTileMapping(t, &mapped);
    EXPECT_FALSE(mapped) << "the caller maps it";
  }
  // A shape with a zero dimension is simply an empty variable.
  EXPECT_EQ(poputil::createPartitionableTensor(rig.graph, FLOAT, {3, 0}, {2, 2}).shape(),
            (Shape{3, 0}));
}

TEST(PoputilVarStructure, PartitionErrorsNameTheMismatch) {
  Rig rig;
  EXPECT_THROW_MSG(poplibs_error, poputil::createPartitionableTensor(rig.graph, FLOAT, {4, 4}, {2}),
                   {"poputil::createPartitionableTensor", "shape [4,4]", "nPartitions [2]"});
  EXPECT_THROW_MSG(poplibs_error,
                   poputil::createPartitionableTensor(rig.graph, FLOAT, {4, 4}, {2, 0}),
                   {"poputil::createPartitionableTensor", "0 partitions of dimension 1"});
  Tensor t = rig.graph.addVariable(FLOAT, {4, 4}, "t");
  auto ignore = [](const std::vector<std::size_t> &, const Tensor &) {};
  EXPECT_THROW_MSG(poplibs_error, poputil::iterateTensorPartitions(t, {2, 2, 2}, ignore),
                   {"poputil::iterateTensorPartitions", "rank 2", "[2,2,2]"});
  EXPECT_THROW_MSG(poplibs_error, poputil::iterateTensorPartitions(t, {0, 2}, ignore),
                   {"poputil::iterateTensorPartitions", "0 partitions of dimension 0"});
}
