// Tensor views checked structurally: every view's getVarRegions(), expanded element by element,
// must equal the element order a naive row-major index loop on the host computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <sstream>

#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include "ViewReference.hpp"

using namespace poplar;
using namespace viewref;

namespace {

class TensorViewFixture : public ::testing::Test {
protected:
  TensorViewFixture() : device(smallDevice(4)), graph(device.getTarget()) {}
  Device device;
  Graph graph;
};

} // namespace

// ---- slice and index ------------------------------------------------------------------------

using TensorSlice = TensorViewFixture;

TEST_F(TensorSlice, RangeOnInnerDimSelectsColumns) {
  Tensor t = graph.addVariable(FLOAT, {4, 5}, "t");
  Tensor s = t.slice(1, 4, 1);
  auto flat = naiveMap({4, 3}, [](const Shape &i) { return flatOf({4, 5}, {i[0], i[1] + 1}); });
  expectView(s, {4, 3}, onVar(t, flat));
}

TEST_F(TensorSlice, RangeOnOuterDimIsOneContiguousRun) {
  Tensor t = graph.addVariable(FLOAT, {4, 5}, "t");
  Tensor s = t.slice(1, 3, 0);
  std::vector<std::size_t> flat(10);
  std::iota(flat.begin(), flat.end(), 5);
  expectView(s, {2, 5}, onVar(t, flat));
  EXPECT_TRUE(s.isContiguous());
}

TEST_F(TensorSlice, MultiDimBoxMatchesNaiveLoop) {
  const Shape base{3, 4, 5};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  Tensor s = t.slice({1, 0, 2}, {3, 3, 5});
  auto flat = naiveMap({2, 3, 3}, [&](const Shape &i) {
    return flatOf(base, {i[0] + 1, i[1], i[2] + 2});
  });
  expectView(s, {2, 3, 3}, onVar(t, flat));
}

TEST_F(TensorSlice, EveryBoxOfAShuffledViewMatchesNaiveLoop) {
  // A shuffled source has one region per element, and boxes that take trailing dimensions whole
  // join them into longer runs: both paths of the box walk, for every box of a small shape.
  const Shape base{2, 3, 4};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  Tensor v = t.dimShuffle({2, 0, 1}); // [4][2][3]
  const Shape vs{4, 2, 3};
  std::size_t boxes = 0;
  for (std::size_t b0 = 0; b0 <= vs[0]; ++b0)
    for (std::size_t e0 = b0; e0 <= vs[0]; ++e0)
      for (std::size_t b1 = 0; b1 <= vs[1]; ++b1)
        for (std::size_t e1 = b1; e1 <= vs[1]; ++e1)
          for (std::size_t b2 = 0; b2 <= vs[2]; ++b2)
            for (std::size_t e2 = b2; e2 <= vs[2]; ++e2) {
              const Shape out{e0 - b0, e1 - b1, e2 - b2};
              auto flat = naiveMap(out, [&](const Shape &i) {
                return flatOf(base, {i[1] + b1, i[2] + b2, i[0] + b0});
              });
              SCOPED_TRACE(::testing::Message() << "box [" << b0 << "," << e0 << ")x[" << b1 << ","
                                                << e1 << ")x[" << b2 << "," << e2 << ")");
              expectView(v.slice({b0, b1, b2}, {e0, e1, e2}), out, onVar(t, flat));
              expectView(t.slice({b1, b2, b0}, {e1, e2, e0}), {e1 - b1, e2 - b2, e0 - b0},
                         onVar(t, naiveMap({e1 - b1, e2 - b2, e0 - b0}, [&](const Shape &i) {
                                 return flatOf(base, {i[0] + b1, i[1] + b2, i[2] + b0});
                               })));
              ++boxes;
            }
  EXPECT_EQ(boxes, 15u * 6u * 10u);
}

TEST_F(TensorSlice, IntervalOverloadEqualsBeginEnd) {
  Tensor t = graph.addVariable(FLOAT, {6, 2}, "t");
  EXPECT_EQ(t.slice(Interval(2, 5), 0), t.slice(2, 5, 0));
  EXPECT_EQ(t.slice(Interval(1, 2), 1), t.slice(1, 2, 1));
}

TEST_F(TensorSlice, SlicesGivesOneViewPerInterval) {
  Tensor t = graph.addVariable(FLOAT, {3, 6}, "t");
  auto parts = t.slices({Interval(0, 2), Interval(3, 6), Interval(5, 6)}, 1);
  ASSERT_EQ(parts.size(), 3u);
  const std::pair<std::size_t, std::size_t> ranges[] = {{0, 2}, {3, 6}, {5, 6}};
  for (std::size_t p = 0; p < 3; ++p) {
    const auto [b, e] = ranges[p];
    auto flat = naiveMap({3, e - b}, [&](const Shape &i) {
      return flatOf({3, 6}, {i[0], i[1] + b});
    });
    expectView(parts[p], {3, e - b}, onVar(t, flat));
  }
}

TEST_F(TensorSlice, SlicesOfIntervalListsConcatenateEachList) {
  Tensor t = graph.addVariable(FLOAT, {8}, "t");
  std::vector<std::vector<Interval>> lists = {{Interval(0, 2), Interval(5, 7)}, {Interval(3, 4)}};
  auto parts = t.slices(lists, 0);
  ASSERT_EQ(parts.size(), 2u);
  expectView(parts[0], {4}, onVar(t, {0, 1, 5, 6}));
  expectView(parts[1], {1}, onVar(t, {3}));
}

TEST_F(TensorSlice, ConcatOfSlicesIsAView) {
  Tensor t = graph.addVariable(FLOAT, {4, 3}, "t");
  Tensor joined = concat({t.slice(0, 1), t.slice(1, 3), t.slice(3, 4)}, 0);
  EXPECT_EQ(joined, t);
  EXPECT_TRUE(joined.isContiguous());
  ASSERT_EQ(joined.getVarRegions().size(), 1u);
  EXPECT_EQ(joined.getVarRegions()[0].var.id, varOf(t));
}

TEST_F(TensorSlice, EmptySliceHasNoElementsOrRegions) {
  Tensor t = graph.addVariable(FLOAT, {4, 3}, "t");
  Tensor s = t.slice(2, 2, 0);
  EXPECT_EQ(s.shape(), (Shape{0, 3}));
  EXPECT_EQ(s.numElements(), 0u);
  EXPECT_TRUE(s.getVarRegions().empty());
  EXPECT_TRUE(s.getContiguousRegions().empty());
}

TEST_F(TensorSlice, SliceOfSliceComposesOffsets) {
  Tensor t = graph.addVariable(FLOAT, {10, 10}, "t");
  Tensor s = t.slice({2, 3}, {9, 9}).slice({1, 2}, {4, 5});
  auto flat = naiveMap({3, 3}, [](const Shape &i) {
    return flatOf({10, 10}, {i[0] + 3, i[1] + 5});
  });
  expectView(s, {3, 3}, onVar(t, flat));
}

using TensorIndex = TensorViewFixture;

TEST_F(TensorIndex, OperatorBracketDropsOuterDimension) {
  Tensor t = graph.addVariable(FLOAT, {3, 2, 4}, "t");
  Tensor row = t[2];
  auto flat = naiveMap({2, 4}, [](const Shape &i) { return flatOf({3, 2, 4}, {2, i[0], i[1]}); });
  expectView(row, {2, 4}, onVar(t, flat));
  EXPECT_EQ(row.rank(), 2u);
}

TEST_F(TensorIndex, IndexWithFullIndexGivesRankZeroElement) {
  Tensor t = graph.addVariable(FLOAT, {3, 4, 5}, "t");
  Tensor e = t.index({1, 2, 3});
  EXPECT_EQ(e.rank(), 0u);
  expectView(e, {}, onVar(t, {flatOf({3, 4, 5}, {1, 2, 3})}));
  EXPECT_EQ(e, t[1][2][3]);
}

TEST_F(TensorIndex, PartialIndexGivesSubTensor) {
  Tensor t = graph.addVariable(FLOAT, {3, 4, 5}, "t");
  Tensor sub = t.index({2, 1});
  std::vector<std::size_t> flat;
  for (std::size_t k = 0; k < 5; ++k)
    flat.push_back(flatOf({3, 4, 5}, {2, 1, k}));
  expectView(sub, {5}, onVar(t, flat));
}

TEST_F(TensorIndex, RankAndDimReportTheShape) {
  Tensor t = graph.addVariable(HALF, {2, 7, 3}, "t");
  EXPECT_EQ(t.rank(), 3u);
  EXPECT_EQ(t.dim(0), 2u);
  EXPECT_EQ(t.dim(1), 7u);
  EXPECT_EQ(t.dim(2), 3u);
  EXPECT_EQ(t.numElements(), 42u);
  EXPECT_EQ(t.elementType(), HALF);
  EXPECT_TRUE(t.valid());
}

// ---- reshape, flatten, expand, squeeze ------------------------------------------------------

using TensorReshape = TensorViewFixture;

TEST_F(TensorReshape, KeepsElementOrderOfAShuffledView) {
  Tensor t = graph.addVariable(FLOAT, {3, 4}, "t");
  Tensor r = t.transpose().reshape({2, 6});
  // Transposed order, regrouped: element k of r is element k of the transpose.
  auto flat = naiveMap({2, 6}, [](const Shape &i) {
    const std::size_t k = i[0] * 6 + i[1];
    return flatOf({3, 4}, {k % 3, k / 3});
  });
  expectView(r, {2, 6}, onVar(t, flat));
}

TEST_F(TensorReshape, ReshapePartialReplacesTheMiddleDimensions) {
  Tensor t = graph.addVariable(FLOAT, {2, 12, 3}, "t");
  Tensor r = t.reshapePartial(1, 2, {3, 4});
  EXPECT_EQ(r.shape(), (Shape{2, 3, 4, 3}));
  EXPECT_EQ(elementsOf(r), elementsOf(t));
  Tensor merged = t.reshapePartial(0, 2, {24});
  EXPECT_EQ(merged.shape(), (Shape{24, 3}));
  Tensor inserted = t.reshapePartial(1, 1, {1});
  EXPECT_EQ(inserted.shape(), (Shape{2, 1, 12, 3}));
}

TEST_F(TensorReshape, FlattenAllGivesRankOneInTensorOrder) {
  Tensor t = graph.addVariable(FLOAT, {2, 3, 4}, "t");
  Tensor f = t.dimShuffle({2, 0, 1}).flatten();
  auto flat = naiveMap({4, 2, 3}, [](const Shape &i) {
    return flatOf({2, 3, 4}, {i[1], i[2], i[0]});
  });
  expectView(f, {24}, onVar(t, flat));
}

TEST_F(TensorReshape, FlattenRangeMergesOnlyThoseDimensions) {
  Tensor t = graph.addVariable(FLOAT, {2, 3, 4, 5}, "t");
  EXPECT_EQ(t.flatten(1, 3).shape(), (Shape{2, 12, 5}));
  EXPECT_EQ(t.flatten(0, 4).shape(), (Shape{120}));
  EXPECT_EQ(t.flatten(3, 4).shape(), t.shape());
  EXPECT_EQ(elementsOf(t.flatten(1, 3)), elementsOf(t));
}

TEST_F(TensorReshape, ExpandInsertsUnitDimensionsAtResultPositions) {
  Tensor t = graph.addVariable(FLOAT, {3, 4}, "t");
  EXPECT_EQ(t.expand({0}).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(t.expand({2}).shape(), (Shape{3, 4, 1}));
  Tensor e = t.expand({0, 2});
  EXPECT_EQ(e.shape(), (Shape{1, 3, 1, 4}));
  EXPECT_EQ(elementsOf(e), elementsOf(t));
}

TEST_F(TensorReshape, SqueezeRemovesUnitDimensions) {
  Tensor t = graph.addVariable(FLOAT, {1, 3, 1, 4, 1}, "t");
  Tensor s = t.squeeze({0, 4, 2});
  EXPECT_EQ(s.shape(), (Shape{3, 4}));
  EXPECT_EQ(elementsOf(s), elementsOf(t));
  EXPECT_EQ(s.expand({0, 2, 4}), t);
}

// ---- dimShuffle family ----------------------------------------------------------------------

using TensorDimShuffle = TensorViewFixture;

namespace {
/// Expected elements of base.dimShuffle(perm) by the naive definition out[i...] = in[perm^-1].
std::vector<std::size_t> naiveShuffle(const Shape &in, const std::vector<unsigned> &perm) {
  Shape out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = in[perm[i]];
  return naiveMap(out, [&](const Shape &o) {
    Shape src(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
      src[perm[i]] = o[i];
    return flatOf(in, src);
  });
}
Shape permuted(const Shape &in, const std::vector<unsigned> &perm) {
  Shape out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = in[perm[i]];
  return out;
}
} // namespace

TEST_F(TensorDimShuffle, EveryRank3PermutationMatchesNaive) {
  const Shape base{2, 3, 4};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  std::vector<unsigned> perm{0, 1, 2};
  int count = 0;
  do {
    SCOPED_TRACE(::testing::Message() << perm[0] << perm[1] << perm[2]);
    expectView(t.dimShuffle(perm), permuted(base, perm), onVar(t, naiveShuffle(base, perm)));
    ++count;
  } while (std::next_permutation(perm.begin(), perm.end()));
  EXPECT_EQ(count, 6);
}

TEST_F(TensorDimShuffle, EveryRank4PermutationMatchesNaive) {
  const Shape base{2, 3, 2, 5};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  std::vector<unsigned> perm{0, 1, 2, 3};
  int count = 0;
  do {
    SCOPED_TRACE(::testing::Message() << perm[0] << perm[1] << perm[2] << perm[3]);
    expectView(t.dimShuffle(perm), permuted(base, perm), onVar(t, naiveShuffle(base, perm)));
    ++count;
  } while (std::next_permutation(perm.begin(), perm.end()));
  EXPECT_EQ(count, 24);
}

TEST_F(TensorDimShuffle, ShuffleOfASlicedViewMatchesNaive) {
  const Shape base{4, 5, 6};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  Tensor v = t.slice({1, 1, 2}, {4, 4, 6}).dimShuffle({2, 0, 1});
  auto flat = naiveMap({4, 3, 3}, [&](const Shape &o) {
    return flatOf(base, {o[1] + 1, o[2] + 1, o[0] + 2});
  });
  expectView(v, {4, 3, 3}, onVar(t, flat));
}

TEST_F(TensorDimShuffle, IdentityAndInverseGiveTheOriginal) {
  Tensor t = graph.addVariable(FLOAT, {2, 3, 4}, "t");
  EXPECT_EQ(t.dimShuffle({0, 1, 2}), t);
  // {1,2,0} then its inverse {2,0,1}.
  EXPECT_EQ(t.dimShuffle({1, 2, 0}).dimShuffle({2, 0, 1}), t);
}

TEST_F(TensorDimShuffle, PartialMovesListedDimsAndKeepsOthersInOrder) {
  const Shape base{2, 3, 4, 5};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  // Source dim 3 goes to position 0, source 0 to position 2: others (1, 2) fill 1 and 3.
  Tensor v = t.dimShufflePartial({3, 0}, {0, 2});
  expectView(v, {5, 3, 2, 4}, onVar(t, naiveShuffle(base, {3, 1, 0, 2})));
}

TEST_F(TensorDimShuffle, DimRollMovesOneDimension) {
  const Shape base{2, 3, 4};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  expectView(t.dimRoll(2), {4, 2, 3}, onVar(t, naiveShuffle(base, {2, 0, 1})));
  expectView(t.dimRoll(0, 2), {3, 4, 2}, onVar(t, naiveShuffle(base, {1, 2, 0})));
  expectView(t.dimRoll(1, 1), base, elementsOf(t));
}

TEST_F(TensorDimShuffle, TransposeSwapsRowsAndColumns) {
  Tensor t = graph.addVariable(FLOAT, {3, 5}, "t");
  Tensor tt = t.transpose();
  auto flat = naiveMap({5, 3}, [](const Shape &i) { return flatOf({3, 5}, {i[1], i[0]}); });
  expectView(tt, {5, 3}, onVar(t, flat));
  EXPECT_EQ(tt.transpose(), t);
  EXPECT_FALSE(tt.isContiguous());
}

// ---- broadcast, reverse, subSample, upsample, reinterpret -----------------------------------

using TensorRepeat = TensorViewFixture;

TEST_F(TensorRepeat, BroadcastRepeatsTheWholeDimension) {
  Tensor t = graph.addVariable(FLOAT, {2, 3}, "t");
  Tensor b = t.broadcast(3, 1);
  auto flat = naiveMap({2, 9}, [](const Shape &i) { return flatOf({2, 3}, {i[0], i[1] % 3}); });
  expectView(b, {2, 9}, onVar(t, flat));
  Tensor outer = t.broadcast(2, 0);
  auto flat0 = naiveMap({4, 3}, [](const Shape &i) { return flatOf({2, 3}, {i[0] % 2, i[1]}); });
  expectView(outer, {4, 3}, onVar(t, flat0));
}

TEST_F(TensorRepeat, ExpandedScalarBroadcastsToEveryElement) {
  Tensor s = graph.addVariable(FLOAT, {}, "s");
  Tensor b = s.expand({0, 0}).broadcast(3, 0).broadcast(4, 1);
  expectView(b, {3, 4}, onVar(s, std::vector<std::size_t>(12, 0)));
  EXPECT_TRUE(b.containsAliases());
}

TEST_F(TensorRepeat, ReverseFlipsOneDimension) {
  const Shape base{3, 4};
  Tensor t = graph.addVariable(FLOAT, base, "t");
  expectView(t.reverse(0), base, onVar(t, naiveMap(base, [](const Shape &i) {
                                         return flatOf({3, 4}, {2 - i[0], i[1]});
                                       })));
  expectView(t.reverse(1), base, onVar(t, naiveMap(base, [](const Shape &i) {
                                         return flatOf({3, 4}, {i[0], 3 - i[1]});
                                       })));
  EXPECT_EQ(t.reverse(1).reverse(1), t);
}

TEST_F(TensorRepeat, SubSampleTakesEveryStridethElement) {
  Tensor t = graph.addVariable(FLOAT, {2, 7}, "t");
  auto flat = naiveMap({2, 3}, [](const Shape &i) { return flatOf({2, 7}, {i[0], i[1] * 3}); });
  expectView(t.subSample(3, 1), {2, 3}, onVar(t, flat));
  expectView(t.subSample(2, 0), {1, 7}, onVar(t, {0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t.subSample(1, 1), t);
}

TEST_F(TensorRepeat, UpsampleRepeatsEachElementInPlace) {
  Tensor t = graph.addVariable(FLOAT, {2, 3}, "t");
  auto flat = naiveMap({2, 6}, [](const Shape &i) { return flatOf({2, 3}, {i[0], i[1] / 2}); });
  expectView(t.upsample(2, 1), {2, 6}, onVar(t, flat));
  auto flat0 = naiveMap({6, 3}, [](const Shape &i) { return flatOf({2, 3}, {i[0] / 3, i[1]}); });
  expectView(t.upsample(3, 0, UpsampleMethod::REPEAT), {6, 3}, onVar(t, flat0));
}

TEST_F(TensorRepeat, ReinterpretKeepsRegionsAndChangesType) {
  Tensor t = graph.addVariable(FLOAT, {2, 3}, "t");
  Tensor view = t.slice(1, 3, 1);
  Tensor i = view.reinterpret(INT);
  EXPECT_EQ(i.elementType(), INT);
  EXPECT_EQ(i.shape(), view.shape());
  EXPECT_EQ(elementsOf(i), elementsOf(view));
  EXPECT_NE(i, view);
  EXPECT_EQ(i.reinterpret(FLOAT), view);
  EXPECT_EQ(graph.addVariable(HALF, {4}, "h").reinterpret(UNSIGNED_SHORT).elementType(),
            UNSIGNED_SHORT);
}

// ---- concat and append ----------------------------------------------------------------------

using TensorConcat = TensorViewFixture;

TEST_F(TensorConcat, ThreeTensorsAlongEveryDimensionOfRank3) {
  const Shape shape{2, 3, 4};
  for (unsigned dim = 0; dim < 3; ++dim) {
    SCOPED_TRACE(dim);
    // Three bases whose size along `dim` is 1, 2 and 3.
    std::vector<Tensor> parts;
    std::vector<Shape> shapes;
    for (std::size_t k = 0; k < 3; ++k) {
      Shape s = shape;
      s[dim] = k + 1;
      shapes.push_back(s);
      parts.push_back(graph.addVariable(FLOAT, s, numbered("part", k)));
    }
    Shape out = shape;
    out[dim] = 6;
    std::vector<Element> expected;
    forEachIndex(out, [&](const Shape &idx) {
      std::size_t k = 0, at = idx[dim];
      while (at >= shapes[k][dim]) {
        at -= shapes[k][dim];
        ++k;
      }
      Shape src = idx;
      src[dim] = at;
      expected.push_back({varOf(parts[k]), flatOf(shapes[k], src)});
    });
    expectView(concat(parts, dim), out, expected);
  }
}

TEST_F(TensorConcat, TwoTensorOverloadEqualsListOverload) {
  Tensor a = graph.addVariable(FLOAT, {2, 3}, "a");
  Tensor b = graph.addVariable(FLOAT, {2, 5}, "b");
  EXPECT_EQ(concat(a, b, 1), concat({a, b}, 1));
  EXPECT_EQ(concat(a, b, 1).shape(), (Shape{2, 8}));
  EXPECT_EQ(concat(a.transpose(), b.transpose()).shape(), (Shape{8, 2}));
}

TEST_F(TensorConcat, ConcatOfOneTensorIsThatTensor) {
  Tensor a = graph.addVariable(FLOAT, {2, 3}, "a");
  EXPECT_EQ(concat({a}, 1), a);
}

TEST_F(TensorConcat, AppendAddsOneSlice) {
  Tensor a = graph.addVariable(FLOAT, {2, 3}, "a");
  Tensor row = graph.addVariable(FLOAT, {3}, "row");
  Tensor col = graph.addVariable(FLOAT, {2}, "col");
  std::vector<Element> rows = elementsOf(a);
  for (std::size_t j = 0; j < 3; ++j)
    rows.push_back({varOf(row), j});
  expectView(append(a, row, 0), {3, 3}, rows);
  std::vector<Element> cols;
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 3; ++j)
      cols.push_back({varOf(a), i * 3 + j});
    cols.push_back({varOf(col), i});
  }
  expectView(append(a, col, 1), {2, 4}, cols);
}

// ---- queries -------------------------------------------------------------------------------

using TensorQueries = TensorViewFixture;

TEST_F(TensorQueries, IsContiguousOnlyForOneRunOfOneVariable) {
  Tensor t = graph.addVariable(FLOAT, {4, 4}, "t");
  Tensor u = graph.addVariable(FLOAT, {4}, "u");
  EXPECT_TRUE(t.isContiguous());
  EXPECT_TRUE(t.slice(1, 3, 0).isContiguous());
  EXPECT_TRUE(t[2].slice(1, 3).isContiguous());
  EXPECT_FALSE(t.slice(1, 3, 1).isContiguous());
  EXPECT_FALSE(t.transpose().isContiguous());
  EXPECT_FALSE(concat(t.flatten(), u).isContiguous());
  EXPECT_FALSE(t.reverse(0).isContiguous());
}

TEST_F(TensorQueries, ContainsAliasesWhenAnElementRepeats) {
  Tensor t = graph.addVariable(FLOAT, {3, 4}, "t");
  EXPECT_FALSE(t.containsAliases());
  EXPECT_FALSE(t.transpose().containsAliases());
  EXPECT_FALSE(concat(t.slice(0, 1), t.slice(2, 3)).containsAliases());
  EXPECT_TRUE(t.broadcast(2, 0).containsAliases());
  EXPECT_TRUE(t.upsample(2, 1).containsAliases());
  EXPECT_TRUE(concat(t.slice(0, 2), t.slice(1, 3)).containsAliases());
  EXPECT_FALSE(t.broadcast(1, 0).containsAliases());
}

TEST_F(TensorQueries, ContainsConstantWhenAnyElementIsConstant) {
  Tensor v = graph.addVariable(FLOAT, {3}, "v");
  Tensor c = graph.addConstant<float>(FLOAT, {3}, 1.5f, "c");
  EXPECT_FALSE(v.containsConstant());
  EXPECT_TRUE(c.containsConstant());
  EXPECT_TRUE(concat(v, c).containsConstant());
  EXPECT_FALSE(concat(v, c).slice(0, 3).containsConstant());
  EXPECT_TRUE(concat(v, c).slice(2, 4).containsConstant());
}

TEST_F(TensorQueries, IntersectsWithOnlyWhenElementsAreShared) {
  Tensor t = graph.addVariable(FLOAT, {10}, "t");
  Tensor u = graph.addVariable(FLOAT, {10}, "u");
  EXPECT_TRUE(t.slice(0, 5).intersectsWith(t.slice(4, 8)));
  EXPECT_FALSE(t.slice(0, 5).intersectsWith(t.slice(5, 8)));
  EXPECT_FALSE(t.intersectsWith(u));
  // Aliasing inside one side is not an intersection with a disjoint tensor.
  EXPECT_FALSE(t.slice(0, 2).broadcast(3, 0).intersectsWith(t.slice(2, 10)));
  EXPECT_TRUE(t.reverse(0).intersectsWith(t.slice(9, 10)));
  EXPECT_TRUE(concat(u, t.slice(3, 4)).intersectsWith(t.subSample(3, 0)));
}

TEST_F(TensorQueries, IntersectsWithIsFalseAcrossGraphs) {
  Graph other(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {4}, "a");
  Tensor b = other.addVariable(FLOAT, {4}, "b");
  // Both are variable 0 of their graph, but they are different elements.
  EXPECT_EQ(varOf(a), varOf(b));
  EXPECT_FALSE(a.intersectsWith(b));
  EXPECT_NE(a, b);
}

TEST_F(TensorQueries, ContiguousRegionsAreTheNaiveRunsOfAColumnSlice) {
  Tensor t = graph.addVariable(FLOAT, {4, 6}, "t");
  Tensor v = t.slice(2, 5, 1);
  // Naive runs: consecutive view elements that are consecutive in the same variable.
  auto elems = elementsOf(v);
  std::vector<Interval> runs;
  std::size_t start = 0;
  for (std::size_t i = 1; i <= elems.size(); ++i)
    if (i == elems.size() || elems[i].first != elems[i - 1].first ||
        elems[i].second != elems[i - 1].second + 1) {
      runs.emplace_back(start, i);
      start = i;
    }
  EXPECT_EQ(v.getContiguousRegions(), runs);
  EXPECT_EQ(runs.size(), 4u);
}

TEST_F(TensorQueries, ShortStringPrintsTypeAndShape) {
  EXPECT_EQ(graph.addVariable(FLOAT, {3, 4}, "a").shortString(), "float[3,4]");
  EXPECT_EQ(graph.addVariable(HALF, {}, "b").shortString(), "half[]");
  EXPECT_EQ(graph.addVariable(UNSIGNED_INT, {7}, "c").shortString(), "unsigned int[7]");
  std::ostringstream os;
  os << graph.addVariable(INT, {2, 1, 5}, "d");
  EXPECT_EQ(os.str(), "int[2,1,5]");
  EXPECT_EQ(Tensor().shortString(), "<invalid tensor>");
}

TEST_F(TensorQueries, EqualityComparesElementsShapeAndType) {
  Tensor t = graph.addVariable(FLOAT, {2, 3}, "t");
  EXPECT_EQ(t.slice(0, 1).flatten(), t[0]);
  EXPECT_EQ(t.reshape({3, 2}).reshape({2, 3}), t);
  EXPECT_NE(t.reshape({3, 2}), t);  // same elements, other shape
  EXPECT_NE(t.reverse(1), t);       // same shape, other order
  EXPECT_NE(t.reinterpret(INT), t); // same elements, other type
  EXPECT_NE(graph.addVariable(FLOAT, {2, 3}, "u"), t);
  EXPECT_EQ(Tensor(), Tensor());
  EXPECT_NE(Tensor(), t);
}

TEST_F(TensorQueries, DefaultConstructedTensorIsInvalid) {
  Tensor t;
  EXPECT_FALSE(t.valid());
  Tensor copy = graph.addVariable(FLOAT, {2}, "x");
  EXPECT_TRUE(copy.valid());
  copy = t;
  EXPECT_FALSE(copy.valid());
}
