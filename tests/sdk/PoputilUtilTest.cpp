// poputil/Util.hpp: index arithmetic against naive loops, the split rule against its closed
// form and invariants, duplicate/cloneN through the Engine, half casts against the bit-level
// reference, factorDims against naive index maps, unshuffling against a shuffle, and every
// error path.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/Util.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using poputil::poplibs_error;
using viewref::Shape;

namespace {

std::size_t sizeOf(const std::vector<Interval> &list) {
  std::size_t n = 0;
  for (const auto &iv : list)
    n += iv.size();
  return n;
}

/// Every element of `regions`, in order.
std::vector<std::size_t> elementsOf(const std::vector<Interval> &regions) {
  std::vector<std::size_t> out;
  for (const auto &iv : regions)
    for (auto i = iv.begin(); i < iv.end(); ++i)
      out.push_back(i);
  return out;
}

} // namespace

// ---- index arithmetic ------------------------------------------------------------------------

TEST(PoputilUtil, FlattenAndUnflattenIndexAgreeWithRowMajorWalk) {
  for (const Shape &shape : {Shape{7}, Shape{3, 4}, Shape{2, 3, 5}, Shape{1, 4, 1, 3}}) {
    std::size_t expectedFlat = 0;
    viewref::forEachIndex(shape, [&](const Shape &idx) {
      EXPECT_EQ(poputil::flattenIndex(shape, idx), expectedFlat);
      EXPECT_EQ(poputil::unflattenIndex(shape, expectedFlat), idx);
      ++expectedFlat;
    });
  }
  // The templates work on other index types too.
  const std::vector<unsigned> shape{4, 5};
  EXPECT_EQ(poputil::unflattenIndex(shape, 13), (std::vector<unsigned>{2, 3}));
  EXPECT_EQ(poputil::flattenIndex(shape, std::vector<unsigned>{2, 3}), 13u);
}

TEST(PoputilUtil, IndexErrorsNameTheFunctionAndTheCulprit) {
  EXPECT_THROW_MSG(poplibs_error, poputil::unflattenIndex(Shape{3, 4}, 12),
                   {"poputil::unflattenIndex", "index 12", "12 elements"});
  EXPECT_THROW_MSG(poplibs_error, poputil::flattenIndex(Shape{3, 4}, Shape{1}),
                   {"poputil::flattenIndex", "1 indices", "rank 2"});
  EXPECT_THROW_MSG(poplibs_error, poputil::flattenIndex(Shape{3, 4}, Shape{1, 4}),
                   {"poputil::flattenIndex", "index 4", "dimension 1", "size 4"});
}

// ---- interval lists ---------------------------------------------------------------------------

TEST(PoputilUtil, MergeAdjacentRegionsSortsDropsEmptiesAndJoins) {
  std::vector<Interval> r{{10, 12}, {0, 3}, {5, 5}, {3, 4}, {12, 20}, {6, 8}};
  poputil::mergeAdjacentRegions(r);
  EXPECT_EQ(r, (std::vector<Interval>{{0, 4}, {6, 8}, {10, 20}}));

  std::vector<std::vector<Interval>> mapping{{{4, 6}, {2, 4}}, {}, {{9, 10}, {7, 8}}};
  poputil::mergeAdjacentRegions(mapping);
  EXPECT_EQ(mapping, (std::vector<std::vector<Interval>>{{{2, 6}}, {}, {{7, 8}, {9, 10}}}));
}

TEST(PoputilUtil, FlattenIntervalsAndSequenceCountKeepOrder) {
  const std::vector<std::vector<Interval>> seq{{{5, 7}, {0, 1}}, {}, {{9, 12}}};
  EXPECT_EQ(poputil::flattenIntervals(seq), (std::vector<Interval>{{5, 7}, {0, 1}, {9, 12}}));
  EXPECT_EQ(poputil::intervalSequenceNumElements(seq), 6u);
}

// ---- splitting work ---------------------------------------------------------------------------

/// Closed form of the documented rule: the grains each partition gets.
std::vector<std::size_t> expectedGrains(std::size_t total, unsigned grain, unsigned maxParts,
                                        unsigned minElems, unsigned maxElems) {
  auto ceilDiv = [](std::size_t a, std::size_t b) { return (a + b - 1) / b; };
  const std::size_t grains = ceilDiv(total, grain);
  std::size_t per = std::min(ceilDiv(grains, maxParts), std::max<std::size_t>(1, maxElems / grain));
  if (minElems)
    per =
        std::max(per, ceilDiv(grains, std::max<std::size_t>(1, grains / ceilDiv(minElems, grain))));
  const std::size_t parts = ceilDiv(grains, per);
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < parts; ++p)
    out.push_back((p + 1) * grains / parts - p * grains / parts);
  return out;
}

TEST(PoputilUtil, SplitRegionsMatchesItsRuleAndCoversEveryElementInOrder) {
  const std::vector<Interval> regions{{0, 10}, {15, 20}, {33, 60}}; // 42 elements
  struct Case {
    unsigned grain, maxParts, minElems, maxElems, maxRegion;
  };
  const Case cases[] = {{4, 8, 6, UINT_MAX, UINT_MAX}, {1, 6, 0, UINT_MAX, UINT_MAX},
                        {4, 3, 0, UINT_MAX, UINT_MAX}, {2, 100, 0, UINT_MAX, UINT_MAX},
                        {4, 2, 0, 8, UINT_MAX},        {1, 1, 0, UINT_MAX, 5},
                        {3, 4, 20, UINT_MAX, 7},       {8, 6, 0, 3, UINT_MAX}};
  for (const auto &c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "grain " << c.grain << " maxParts " << c.maxParts << " min " << c.minElems
                 << " max " << c.maxElems << " maxRegion " << c.maxRegion);
    const auto parts =
        poputil::splitRegions(regions, c.grain, c.maxParts, c.minElems, c.maxElems, c.maxRegion);
    const auto grains = expectedGrains(42, c.grain, c.maxParts, c.minElems, c.maxElems);
    ASSERT_EQ(parts.size(), grains.size());
    std::vector<Interval> all;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const std::size_t want = std::min<std::size_t>(grains[p] * c.grain, 42 - sizeOf(all));
      EXPECT_EQ(sizeOf(parts[p]), want) << "partition " << p;
      const std::size_t pieceLimit = c.grain * std::max(1u, c.maxRegion / c.grain);
      for (const auto &iv : parts[p]) {
        EXPECT_GT(iv.size(), 0u);
        EXPECT_LE(iv.size(), pieceLimit);
      }
      all.insert(all.end(), parts[p].begin(), parts[p].end());
    }
    EXPECT_EQ(elementsOf(all), elementsOf(regions));
  }
}

TEST(PoputilUtil, SplitRegionsWorkedExample) {
  // 42 elements in grains of 4 (11 grains), at most 8 partitions of at least 6 elements (2
  // grains): at most 3 grains each, so 4 partitions rather than 5, getting grains
  // [0,2) [2,5) [5,8) [8,11).
  const auto parts = poputil::splitRegions({{0, 10}, {15, 20}, {33, 60}}, 4, 8, 6);
  const std::vector<std::vector<Interval>> expected{
      {{0, 8}}, {{8, 10}, {15, 20}, {33, 38}}, {{38, 50}}, {{50, 60}}};
  EXPECT_EQ(parts, expected);
  EXPECT_TRUE(poputil::splitRegions(std::vector<Interval>{}, 4, 8).empty());
  EXPECT_TRUE(poputil::splitRegions(std::vector<Interval>{{3, 3}}, 4, 8).empty());
}

TEST(PoputilUtil, SplitSequencesCutsSequencesAtTheSameElementsAsTheirConcatenation) {
  const std::vector<std::vector<Interval>> seqs{{{0, 3}, {10, 14}}, {{20, 21}}, {{30, 40}, {5, 7}}};
  const auto parts = poputil::splitRegions(seqs, 2, 4, 0, UINT_MAX, 3);
  std::vector<Interval> flat;
  for (const auto &s : seqs)
    flat.insert(flat.end(), s.begin(), s.end());
  const auto flatParts = poputil::splitRegions(flat, 2, 4);
  ASSERT_EQ(parts.size(), flatParts.size());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    std::vector<Interval> got;
    for (const auto &piece : parts[p]) {
      EXPECT_LE(sizeOf(piece), 2u) << "a piece of a sequence holds at most 3 → 2 (whole grains)";
      got.insert(got.end(), piece.begin(), piece.end());
    }
    EXPECT_EQ(elementsOf(got), elementsOf(flatParts[p])) << "partition " << p;
  }
}

TEST(PoputilUtil, SplitBetweenWorkersUsesOnePartitionPerWorkerContext) {
  IPUModel model;
  model.tilesPerIPU = 2;
  model.numWorkerContexts = 6;
  const Device device = model.createDevice();
  const auto parts = poputil::splitRegionsBetweenWorkers(device.getTarget(), {{0, 100}}, 1);
  ASSERT_EQ(parts.size(), 6u);
  EXPECT_EQ(parts[0], (std::vector<Interval>{{0, 16}}));
  EXPECT_EQ(parts[5], (std::vector<Interval>{{83, 100}}));
  const auto seqParts =
      poputil::splitRegionsBetweenWorkers(device.getTarget(), {{{0, 50}}, {{60, 110}}}, 1);
  EXPECT_EQ(seqParts.size(), 6u);
}

TEST(PoputilUtil, SplitRegionsRejectsZeroGrainOrPartitions) {
  EXPECT_THROW_MSG(poplibs_error, poputil::splitRegions({{0, 4}}, 0, 2),
                   {"poputil::splitRegions", "grainSize"});
  EXPECT_THROW_MSG(poplibs_error,
                   poputil::splitRegions(std::vector<std::vector<Interval>>{{{0, 4}}}, 1, 0),
                   {"poputil::splitRegions", "maxPartitions"});
}

// ---- copies and clones ------------------------------------------------------------------------

TEST(PoputilUtil, DuplicateCopiesValuesIntoASeparateVariableMappedAlike) {
  const Device device = viewref::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor in = graph.addVariable(FLOAT, {3, 8}, "in");
  poputil::mapTensorLinearly(graph, in, 1, 2);
  program::Sequence prog;
  Tensor copy = poputil::duplicate(graph, in, prog, "dup");
  EXPECT_EQ(copy.shape(), in.shape());
  EXPECT_FALSE(copy.intersectsWith(in));
  EXPECT_EQ(graph.getTileMapping(copy), graph.getTileMapping(in));

  // Run it, then change the source: the copy keeps the values it was given.
  graph.createHostWrite("in", in);
  graph.createHostRead("in", in);
  graph.createHostRead("copy", copy);
  Engine engine(graph, prog);
  engine.load(device);
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), 1.5f);
  engine.writeTensor("in", values.data(), values.data() + values.size());
  engine.run();
  std::vector<float> zeros(24, 0.0f), got(24), gotIn(24);
  engine.writeTensor("in", zeros.data(), zeros.data() + zeros.size());
  engine.readTensor("copy", got.data(), got.data() + got.size());
  engine.readTensor("in", gotIn.data(), gotIn.data() + gotIn.size());
  EXPECT_EQ(got, values);
  EXPECT_EQ(gotIn, zeros);
}

TEST(PoputilUtil, DuplicateOfAnAliasingTensorKeepsItsAliasesAndValues) {
  const Device device = viewref::smallDevice(2);
  Graph graph(device.getTarget());
  Tensor base = graph.addVariable(FLOAT, {4}, "base");
  graph.setTileMapping(base, 1);
  // [b0 b1 b2 b3 b1 b2 b0] : repeats whole and partial runs.
  Tensor aliased = concat({base, base.slice(1, 3), base.slice(0, 1)});
  program::Sequence prog;
  Tensor copy = poputil::duplicate(graph, aliased, prog, "dup",
                                   TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES);
  EXPECT_TRUE(copy.containsAliases());
  graph.createHostWrite("base", base);
  graph.createHostRead("copy", copy);
  Engine engine(graph, prog);
  engine.load(device);
  const std::vector<float> values{10, 20, 30, 40};
  engine.writeTensor("base", values.data(), values.data() + 4);
  engine.run();
  std::vector<float> got(7);
  engine.readTensor("copy", got.data(), got.data() + 7);
  EXPECT_EQ(got, (std::vector<float>{10, 20, 30, 40, 20, 30, 10}));
}

TEST(PoputilUtil, DuplicateOfAnInvalidTensorThrows) {
  const Device device = viewref::smallDevice(2);
  Graph graph(device.getTarget());
  program::Sequence prog;
  EXPECT_THROW_MSG(poplibs_error, poputil::duplicate(graph, Tensor(), prog),
                   {"poputil::duplicate", "invalid"});
  EXPECT_THROW_MSG(poplibs_error, poputil::cloneN(graph, Tensor(), 2),
                   {"poputil::cloneN", "invalid"});
}

TEST(PoputilUtil, CloneNStacksClonesMappedLikeTheOriginal) {
  const Device device = viewref::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor t = graph.addVariable(HALF, {2, 6}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor n = poputil::cloneN(graph, t, 3, "three");
  EXPECT_EQ(n.shape(), (Shape{3, 2, 6}));
  EXPECT_EQ(n.elementType(), HALF);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(graph.getTileMapping(n[i]), graph.getTileMapping(t));
    EXPECT_FALSE(n[i].intersectsWith(t));
    for (unsigned j = 0; j < i; ++j)
      EXPECT_FALSE(n[i].intersectsWith(n[j]));
  }
}

TEST(PoputilUtil, BalancedPartitionGivesTheRemainderToTheFirstSlices) {
  for (int range : {0, 1, 7, 10, 12, 33}) {
    for (int split : {1, 3, 4, 5}) {
      const auto sizes = poputil::balancedPartition(range, split);
      ASSERT_EQ(sizes.size(), static_cast<std::size_t>(split));
      EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), 0), range);
      for (int i = 0; i < split; ++i)
        EXPECT_EQ(sizes[i], range / split + (i < range % split ? 1 : 0));
    }
  }
  EXPECT_THROW_MSG(poplibs_error, poputil::balancedPartition(5, 0),
                   {"poputil::balancedPartition", "splitCount", "0"});
  EXPECT_THROW_MSG(poplibs_error, poputil::balancedPartition(-1, 2),
                   {"poputil::balancedPartition", "rangeUpperBound", "-1"});
}

// ---- casts ------------------------------------------------------------------------------------

TEST(PoputilUtil, CastToDeviceHalfValueRoundsToNearestHalf) {
  const Target target = Target::createCPUTarget();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-70000.0, 70000.0);
  for (int i = 0; i < 200; ++i) {
    const double x = dist(rng) * std::pow(2.0, -(i % 30));
    // Reference: the nearest half through its bit pattern, then back.
    const double expected = halfBitsToFloat(floatToHalfBits(static_cast<float>(x)));
    EXPECT_EQ(poputil::castToDeviceHalfValue(target, x), expected) << x;
  }
  EXPECT_EQ(poputil::castToDeviceHalfValue(target, 1.0 + 1.0 / 4096), 1.0); // below half an ulp
  EXPECT_EQ(poputil::castToDeviceHalfValue(target, 2049.0), 2048.0);        // tie to even
  EXPECT_TRUE(std::isinf(poputil::castToDeviceHalfValue(target, 70000.0)));
}

TEST(PoputilUtil, CheckAccuracyWhenCastComparesTheRelativeError) {
  const Target target = Target::createCPUTarget();
  EXPECT_TRUE(poputil::checkAccuracyWhenCast(target, 0.5, FLOAT, HALF, 1e-6)); // exact
  EXPECT_TRUE(poputil::checkAccuracyWhenCast(target, 0.1, FLOAT, HALF, 1e-3)); // 2.4e-4 off
  EXPECT_FALSE(poputil::checkAccuracyWhenCast(target, 0.1, FLOAT, HALF, 1e-4));
  EXPECT_FALSE(poputil::checkAccuracyWhenCast(target, 1e6, FLOAT, HALF, 0.5));  // overflow
  EXPECT_FALSE(poputil::checkAccuracyWhenCast(target, 1e-9, FLOAT, HALF, 0.5)); // to zero
  EXPECT_TRUE(poputil::checkAccuracyWhenCast(target, 0.1, HALF, FLOAT, 0.0));
  EXPECT_THROW_MSG(poplibs_error, poputil::checkAccuracyWhenCast(target, 1.0, INT, HALF, 0.1),
                   {"poputil::checkAccuracyWhenCast", "int", "half"});
  EXPECT_THROW_MSG(poplibs_error, poputil::checkAccuracyWhenCast(target, 1.0, FLOAT, FLOAT, 0.1),
                   {"poputil::checkAccuracyWhenCast", "from float to float"});
}

// ---- factoring ----------------------------------------------------------------------------------

TEST(PoputilUtil, FactorDimsMatchesNaiveIndexMapAndUnfactorDimsUndoesIt) {
  const Device device = viewref::smallDevice(2);
  Graph graph(device.getTarget());
  const Shape shape{5, 4, 6, 4};
  Tensor t = graph.addVariable(FLOAT, shape, "t");
  // Factor dims 1 and 2 by 2 and 3: [5, 4/2, 6/3, 2, 3, 4].
  Tensor f = poputil::factorDims(t, {2, 3}, 1);
  const Shape fShape{5, 2, 2, 2, 3, 4};
  const auto expected = viewref::onVar(
      t, viewref::naiveMap(fShape, [&](const Shape &i) {
        // outer o_d and inner f_d recombine as o_d * factor + f_d.
        return viewref::flatOf(shape, {i[0], i[1] * 2 + i[3], i[2] * 3 + i[4], i[5]});
      }));
  viewref::expectView(f, fShape, expected);
  Tensor back = poputil::unfactorDims(f, 2, 1);
  EXPECT_EQ(back.shape(), shape);
  EXPECT_EQ(viewref::elementsOf(back), viewref::elementsOf(t));
  // The documented example: [4,6,4] by [1,2] is [4,3,1,2,4].
  EXPECT_EQ(poputil::factorDims(graph.addVariable(FLOAT, {4, 6, 4}), {1, 2}).shape(),
            (Shape{4, 3, 1, 2, 4}));
}

TEST(PoputilUtil, FactorDimsErrorsNameTheDimension) {
  const Device device = viewref::smallDevice(2);
  Graph graph(device.getTarget());
  Tensor t = graph.addVariable(FLOAT, {4, 6}, "t");
  EXPECT_THROW_MSG(poplibs_error, poputil::factorDims(t, {4, 4}),
                   {"poputil::factorDims", "factor 4", "dimension 1", "size 6"});
  EXPECT_THROW_MSG(poplibs_error, poputil::factorDims(t, {0}),
                   {"poputil::factorDims", "factor 0", "dimension 0"});
  EXPECT_THROW_MSG(poplibs_error, poputil::factorDims(t, {2, 2}, 1),
                   {"poputil::factorDims", "run past the rank 2"});
  EXPECT_THROW_MSG(poplibs_error, poputil::unfactorDims(t, 2),
                   {"poputil::unfactorDims", "4 factored dimensions", "rank 2"});
}

// ---- unshuffling --------------------------------------------------------------------------------

TEST(PoputilUtil, UnshufflingIntervalsUndoRandomShuffles) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    // Cut [base, base + n) into random pieces and shuffle them.
    const std::size_t base = trial % 3 == 0 ? 0 : rng() % 20, n = 1 + rng() % 60;
    std::vector<std::size_t> cuts{base, base + n};
    for (int k = 0; k < 5; ++k)
      cuts.push_back(base + rng() % n);
    std::sort(cuts.begin(), cuts.end());
    std::vector<Interval> pieces;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
      if (cuts[k] != cuts[k + 1])
        pieces.emplace_back(cuts[k], cuts[k + 1]);
    std::shuffle(pieces.begin(), pieces.end(), rng);
    // Shuffle a host vector holding each element's own index, then unshuffle it.
    const std::vector<std::size_t> shuffled = elementsOf(pieces);
    std::vector<std::size_t> restored;
    for (const auto &iv : poputil::calculateUnshufflingIntervals(pieces))
      for (auto i = iv.begin(); i < iv.end(); ++i)
        restored.push_back(shuffled.at(i));
    std::vector<std::size_t> original(n);
    std::iota(original.begin(), original.end(), base);
    EXPECT_EQ(restored, original);
  }
  EXPECT_EQ(poputil::calculateUnshufflingIntervals({{2, 5}, {0, 2}}),
            (std::vector<Interval>{{3, 5}, {0, 3}}));
}

TEST(PoputilUtil, UnshufflingRejectsOverlapsAndGaps) {
  EXPECT_THROW_MSG(poplibs_error, poputil::calculateUnshufflingIntervals({{0, 4}, {3, 6}}),
                   {"poputil::calculateUnshufflingIntervals", "[0, 4) and [3, 6) overlap"});
  EXPECT_THROW_MSG(poplibs_error, poputil::calculateUnshufflingIntervals({{6, 8}, {0, 4}}),
                   {"poputil::calculateUnshufflingIntervals", "gap", "[0, 4) and [6, 8)"});
}
