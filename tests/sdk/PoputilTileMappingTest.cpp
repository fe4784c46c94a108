// The PopLibs 3.x additions to poputil/TileMapping.hpp: createBroadcastOperand against the
// tiles that use each element (found by walking every element of the full tensor), its dither
// as a rotation, dimIsSplitOverTiles/IPUs on known mappings, getTileImbalance on a mapping, and
// moving tensors between IPUs (placement and values through the Engine), and TensorUseTracker
// against the recorded uses.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using poputil::poplibs_error;
using viewref::Shape;

namespace {

/// Tile of each element of `t` in tensor order.
std::vector<unsigned> tileOfEach(const Graph &graph, const Tensor &t) {
  std::vector<unsigned> out(t.numElements(), ~0u);
  const auto m = graph.getTileMapping(t);
  for (unsigned tile = 0; tile < m.size(); ++tile)
    for (const auto &iv : m[tile])
      for (auto i = iv.begin(); i < iv.end(); ++i)
        out[i] = tile;
  return out;
}

/// Naive: for each index k of dimension `dim`, the tiles holding an element with that index.
std::vector<std::set<unsigned>> usersOf(const Graph &graph, const Tensor &full, unsigned dim) {
  std::vector<std::set<unsigned>> users(full.dim(dim));
  const auto tiles = tileOfEach(graph, full);
  std::size_t flat = 0;
  viewref::forEachIndex(full.shape(),
                        [&](const Shape &idx) { users[idx[dim]].insert(tiles[flat++]); });
  return users;
}

Device device(unsigned ipus, unsigned tilesPerIpu) {
  IPUModel model;
  model.numIPUs = ipus;
  model.tilesPerIPU = tilesPerIpu;
  return model.createDevice();
}

} // namespace

TEST(PoputilTileMapping, BroadcastOperandOfRowsPerTileSpreadsChannelsOverTheRowTiles) {
  Device d = device(1, 4);
  Graph graph(d.getTarget());
  Tensor acts = graph.addVariable(FLOAT, {4, 8}, "acts");
  for (unsigned r = 0; r < 4; ++r)
    graph.setTileMapping(acts[r], r);
  // Along dim 0, operand element r is used only by tile r.
  Tensor perRow = poputil::createBroadcastOperand(graph, acts, FLOAT, 0, false, "perRow");
  EXPECT_EQ(perRow.shape(), (Shape{4}));
  EXPECT_EQ(tileOfEach(graph, perRow), (std::vector<unsigned>{0, 1, 2, 3}));
  // Along dim 1 every tile uses every element: shared out in grains of one 64-bit data-path
  // word, 2 floats or 4 halves.
  Tensor floats = poputil::createBroadcastOperand(graph, acts, FLOAT, 1, false, "bias");
  EXPECT_EQ(tileOfEach(graph, floats), (std::vector<unsigned>{0, 0, 1, 1, 2, 2, 3, 3}));
  Tensor halves = poputil::createBroadcastOperand(graph, acts, HALF, 1, false, "halfBias");
  EXPECT_EQ(halves.elementType(), HALF);
  EXPECT_EQ(tileOfEach(graph, halves), (std::vector<unsigned>{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(PoputilTileMapping, BroadcastOperandElementsLieOnTilesThatUseThem) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    Device d = device(1, 6);
    Graph graph(d.getTarget());
    const Shape shape{1 + rng() % 4, 1 + rng() % 9, 1 + rng() % 5};
    Tensor full = graph.addVariable(FLOAT, shape);
    const std::size_t grain = 1 + rng() % 7;
    for (std::size_t at = 0; at < full.numElements(); at += grain)
      graph.setTileMapping(full.flatten().slice(at, std::min(at + grain, full.numElements())),
                           rng() % 6);
    const unsigned dim = rng() % 3;
    SCOPED_TRACE(::testing::Message()
                 << ::testing::PrintToString(shape) << " dim " << dim << " grain " << grain);
    Tensor op = poputil::createBroadcastOperand(graph, full, FLOAT, dim);
    const auto users = usersOf(graph, full, dim);
    const auto tiles = tileOfEach(graph, op); // also checks it is completely mapped
    for (std::size_t k = 0; k < tiles.size(); ++k)
      EXPECT_TRUE(users[k].count(tiles[k])) << "element " << k << " on tile " << tiles[k];
  }
}

TEST(PoputilTileMapping, DitheredBroadcastOperandIsARotationOfTheUndithered) {
  Device d = device(1, 8);
  Graph graph(d.getTarget());
  Tensor acts = graph.addVariable(FLOAT, {3, 16});
  poputil::mapTensorLinearly(graph, acts, 1, 1);
  const auto plain = graph.getTileMapping(poputil::createBroadcastOperand(graph, acts, FLOAT, 1));
  const auto dithered =
      graph.getTileMapping(poputil::createBroadcastOperand(graph, acts, FLOAT, 1, true));
  const auto again =
      graph.getTileMapping(poputil::createBroadcastOperand(graph, acts, FLOAT, 1, true));
  EXPECT_EQ(dithered, again) << "the dither depends only on the shape";
  bool rotationFound = false;
  for (std::size_t s = 0; s < 8 && !rotationFound; ++s) {
    bool same = true;
    for (std::size_t t = 0; t < 8; ++t)
      same = same && dithered[(t + s) % 8] == plain[t];
    rotationFound = same;
  }
  EXPECT_TRUE(rotationFound);
}

TEST(PoputilTileMapping, BroadcastOperandErrors) {
  Device d = device(1, 4);
  Graph graph(d.getTarget());
  Tensor acts = graph.addVariable(FLOAT, {2, 3}, "acts");
  graph.setTileMapping(acts, 0);
  EXPECT_THROW_MSG(poplibs_error, poputil::createBroadcastOperand(graph, acts, FLOAT, 2),
                   {"poputil::createBroadcastOperand", "dimension 2", "rank 2"});
  Tensor unmapped = graph.addVariable(FLOAT, {2, 3}, "unmappedActs");
  EXPECT_THROW_MSG(invalid_tile_mapping, poputil::createBroadcastOperand(graph, unmapped, FLOAT, 1),
                   {"unmappedActs"});
  // A full tensor without elements still gives a mapped operand.
  Tensor empty = graph.addVariable(FLOAT, {0, 5});
  Tensor op = poputil::createBroadcastOperand(graph, empty, FLOAT, 1);
  EXPECT_EQ(tileOfEach(graph, op).size(), 5u);
}

TEST(PoputilTileMapping, DimIsSplitOverTilesAndIPUs) {
  Device d = device(2, 2); // tiles 0,1 on IPU 0; tiles 2,3 on IPU 1
  Graph graph(d.getTarget());
  Tensor rows = graph.addVariable(FLOAT, {4, 8});
  for (unsigned r = 0; r < 4; ++r)
    graph.setTileMapping(rows[r], r);
  EXPECT_FALSE(poputil::dimIsSplitOverTiles(graph, rows, 1)); // each row on one tile
  EXPECT_TRUE(poputil::dimIsSplitOverTiles(graph, rows, 0));  // each column on four
  EXPECT_TRUE(poputil::dimIsSplitOverIPUs(graph, rows, 0));
  EXPECT_FALSE(poputil::dimIsSplitOverIPUs(graph, rows, 1));
  // Rows 0 and 1 on IPU 0 only: columns span tiles, not IPUs.
  Tensor two = graph.addVariable(FLOAT, {2, 8});
  graph.setTileMapping(two[0], 0);
  graph.setTileMapping(two[1], 1);
  EXPECT_TRUE(poputil::dimIsSplitOverTiles(graph, two, 0));
  EXPECT_FALSE(poputil::dimIsSplitOverIPUs(graph, two, 0));
  // One tile holding a line in two pieces from different variables is still one tile.
  Tensor joined = concat(graph.addVariable(FLOAT, {3}), graph.addVariable(FLOAT, {5}));
  graph.setTileMapping(joined, 3);
  EXPECT_FALSE(poputil::dimIsSplitOverTiles(graph, joined, 0));
  EXPECT_THROW_MSG(poplibs_error, poputil::dimIsSplitOverTiles(graph, rows, 2),
                   {"poputil::dimIsSplitOverTiles", "dimension 2", "rank 2"});
  EXPECT_THROW_MSG(poplibs_error, poputil::dimIsSplitOverIPUs(graph, rows, 5),
                   {"poputil::dimIsSplitOverIPUs", "dimension 5"});
  Tensor unmapped = graph.addVariable(FLOAT, {2, 2}, "unmappedRows");
  EXPECT_THROW_MSG(invalid_tile_mapping, poputil::dimIsSplitOverTiles(graph, unmapped, 0),
                   {"unmappedRows"});
}

TEST(PoputilTileMapping, TileImbalanceOfAMappingAgreesWithTheTensorForm) {
  Device d = device(1, 4);
  Graph graph(d.getTarget());
  Tensor t = graph.addVariable(FLOAT, {100});
  graph.setTileMapping(t.slice(0, 70), 1);
  graph.setTileMapping(t.slice(70, 100), 2);
  for (auto [minElems, grain] : {std::pair{0u, 1u}, {0u, 8u}, {40u, 4u}, {200u, 1u}}) {
    EXPECT_EQ(poputil::getTileImbalance(graph.getTileMapping(t), minElems, grain),
              poputil::getTileImbalance(graph, t, minElems, grain));
  }
  // 70 on the fullest tile against 25 balanced.
  EXPECT_EQ(poputil::getTileImbalance(graph.getTileMapping(t)), 45u);
  EXPECT_EQ(poputil::getTileImbalance(std::vector<std::vector<Interval>>{}), 0u);
  EXPECT_THROW_MSG(poplibs_error, poputil::getTileImbalance(graph.getTileMapping(t), 0, 0),
                   {"poputil::getTileImbalance", "grainSize"});
}

TEST(PoputilTileMapping, CloneAndCopyToIpuKeepTheTileWithinTheIpu) {
  Device d = device(2, 3); // tiles 0-2 on IPU 0, 3-5 on IPU 1
  Graph graph(d.getTarget());
  Tensor t = graph.addVariable(FLOAT, {2, 3}, "t");
  for (unsigned i = 0; i < 6; ++i)
    graph.setTileMapping(t.flatten().slice(i, i + 1), i);
  Tensor onIpu1 = poputil::cloneToIpu(graph, t, 1, "onIpu1");
  EXPECT_EQ(onIpu1.shape(), t.shape());
  EXPECT_FALSE(onIpu1.intersectsWith(t));
  EXPECT_EQ(tileOfEach(graph, onIpu1), (std::vector<unsigned>{3, 4, 5, 3, 4, 5}));
  EXPECT_EQ(tileOfEach(graph, poputil::cloneToIpu(graph, t, 0)),
            (std::vector<unsigned>{0, 1, 2, 0, 1, 2}));

  program::Sequence prog;
  Tensor copied = poputil::copyToIpu(graph, t, prog, 1, "copied");
  EXPECT_EQ(tileOfEach(graph, copied), (std::vector<unsigned>{3, 4, 5, 3, 4, 5}));
  Tensor src, dst;
  Tensor made = poputil::createIpuCopy(graph, t, 1, src, dst, "made");
  EXPECT_TRUE(src == t);
  EXPECT_TRUE(dst == made);
  prog.add(program::Copy(src, dst));
  graph.createHostWrite("t", t);
  graph.createHostRead("copied", copied);
  graph.createHostRead("made", made);
  Engine engine(graph, prog);
  engine.load(d);
  const std::vector<float> values{1, -2, 3.5f, 4, 5, 6};
  engine.writeTensor("t", values.data(), values.data() + 6);
  engine.run();
  std::vector<float> gotCopied(6), gotMade(6);
  engine.readTensor("copied", gotCopied.data(), gotCopied.data() + 6);
  engine.readTensor("made", gotMade.data(), gotMade.data() + 6);
  EXPECT_EQ(gotCopied, values);
  EXPECT_EQ(gotMade, values);
}

TEST(PoputilTileMapping, CloneToIpuErrors) {
  Device d = device(2, 3);
  Graph graph(d.getTarget());
  Tensor t = graph.addVariable(FLOAT, {4}, "t");
  graph.setTileMapping(t, 0);
  EXPECT_THROW_MSG(poplibs_error, poputil::cloneToIpu(graph, t, 2),
                   {"poputil::cloneToIpu", "dstIPU 2", "has 2 IPUs"});
  program::Sequence prog;
  EXPECT_THROW_MSG(poplibs_error, poputil::copyToIpu(graph, t, prog, 7),
                   {"poputil::cloneToIpu", "dstIPU 7"});
  Tensor unmapped = graph.addVariable(FLOAT, {4}, "unmappedForIpu");
  EXPECT_THROW_MSG(invalid_tile_mapping, poputil::cloneToIpu(graph, unmapped, 1),
                   {"unmappedForIpu"});
}

// ---- TensorUseTracker -----------------------------------------------------------------------

TEST(PoputilTensorUseTracker, OverlappingUsesAreSharedBetweenTheirTiles) {
  Device d = device(1, 4);
  Graph graph(d.getTarget());
  Tensor t = graph.addVariable(FLOAT, {12}, "t");
  poputil::TensorUseTracker tracker(4);
  EXPECT_TRUE(tracker.empty());
  tracker.add(graph, 0, t.slice(0, 6));
  tracker.add(graph, 1, t.slice(4, 12));
  EXPECT_FALSE(tracker.empty());
  poputil::TensorUseTracker halo = tracker; // an independent copy
  tracker.mapTensorsByUse(graph, 1, 0);
  // [0,4) only tile 0, [4,6) both (one each), [6,12) only tile 1.
  EXPECT_EQ(tileOfEach(graph, t), (std::vector<unsigned>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1}));
  halo.mapTensorsByUse(graph, 1, 0, false,
                       poputil::TensorUseTracker::MappingMethod::OptimizeHaloRegions);
  EXPECT_EQ(tileOfEach(graph, t), (std::vector<unsigned>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
}

TEST(PoputilTensorUseTracker, EveryUsedElementGoesToATileThatUsesIt) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 40; ++trial) {
    Device d = device(1, 5);
    Graph graph(d.getTarget());
    Tensor a = graph.addVariable(FLOAT, {40}), b = graph.addVariable(FLOAT, {4, 6});
    poputil::TensorUseTracker first(5), second(5);
    std::vector<std::set<unsigned>> usersA(40), usersB(24);
    for (int u = 0; u < 6; ++u) {
      const std::size_t lo = rng() % 40, hi = lo + 1 + rng() % (40 - lo);
      const unsigned tile = rng() % 5;
      first.add(graph, tile, a.slice(lo, hi));
      for (auto i = lo; i < hi; ++i)
        usersA[i].insert(tile);
    }
    // Every element of b is used: a whole column, and the rest row by row.
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned tile = rng() % 5;
      second.add(graph, tile, b[r]);
      for (unsigned c = 0; c < 6; ++c)
        usersB[r * 6 + c].insert(tile);
    }
    second.add(graph, 4, b.slice(2, 3, 1));
    for (unsigned r = 0; r < 4; ++r)
      usersB[r * 6 + 2].insert(4);
    first.add(second); // merged into one tracker
    first.mapTensorsByUse(graph, 2, 0);
    bool complete = true;
    const auto mapA = graph.getTileMapping(a, &complete);
    std::vector<unsigned> tileA(40, ~0u);
    for (unsigned tile = 0; tile < mapA.size(); ++tile)
      for (const auto &iv : mapA[tile])
        for (auto i = iv.begin(); i < iv.end(); ++i)
          tileA[i] = tile;
    for (std::size_t i = 0; i < 40; ++i) {
      if (usersA[i].empty())
        EXPECT_EQ(tileA[i], ~0u) << "unused element " << i << " is left unmapped";
      else
        EXPECT_TRUE(usersA[i].count(tileA[i])) << "element " << i << " on tile " << tileA[i];
    }
    const auto tileB = tileOfEach(graph, b);
    for (std::size_t i = 0; i < 24; ++i)
      EXPECT_TRUE(usersB[i].count(tileB[i])) << "b element " << i << " on tile " << tileB[i];
  }
}

TEST(PoputilTensorUseTracker, ExtendPartialUsageMapsTheWholeVariable) {
  Device d = device(1, 4);
  Graph graph(d.getTarget());
  Tensor t = graph.addVariable(FLOAT, {10}, "t");
  poputil::TensorUseTracker tracker(4);
  tracker.add(graph, 3, t.slice(2, 4));
  tracker.add(graph, 1, t.slice(6, 7));
  poputil::TensorUseTracker partial = tracker;
  partial.mapTensorsByUse(graph, 1, 0);
  bool complete = true;
  graph.getTileMapping(t, &complete);
  EXPECT_FALSE(complete);
  tracker.mapTensorsByUse(graph, 1, 0, true);
  // The start takes the first users, each later gap those of the run before it.
  EXPECT_EQ(tileOfEach(graph, t), (std::vector<unsigned>{3, 3, 3, 3, 3, 3, 1, 1, 1, 1}));
}

TEST(PoputilTensorUseTracker, MovedFromTrackerIsEmptyAndErrorsAreNamed) {
  Device d = device(1, 4);
  Graph graph(d.getTarget());
  Tensor t = graph.addVariable(FLOAT, {4}, "t");
  poputil::TensorUseTracker tracker(4);
  tracker.add(graph, 2, t);
  poputil::TensorUseTracker moved(std::move(tracker));
  EXPECT_FALSE(moved.empty());
  EXPECT_TRUE(tracker.empty()); // NOLINT(bugprone-use-after-move): documented as empty
  EXPECT_THROW_MSG(poplibs_error, moved.add(graph, 4, t),
                   {"poputil::TensorUseTracker::add", "tile 4", "4 tiles"});
  EXPECT_THROW_MSG(poplibs_error, moved.add(poputil::TensorUseTracker(8)),
                   {"poputil::TensorUseTracker::add", "8 tiles into one of 4"});
  EXPECT_THROW_MSG(poplibs_error, moved.resolve(graph, 0, 0),
                   {"poputil::TensorUseTracker::resolve", "grainSize"});
}
