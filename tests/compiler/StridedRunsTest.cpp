// White-box tests of strided runs in tensor views (core/Region.hpp): transposed, reversed,
// sub-sampled and broadcast views hold one run per stride pattern rather than one per element,
// and every view of such a view still lists exactly the elements a naive index map gives.
#include <gtest/gtest.h>

#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include "ViewReference.hpp"
#include "core/Region.hpp"
#include "core/TensorData.hpp"

using namespace poplar;
using viewref::Shape;

namespace {

struct Rig {
  Device device = viewref::smallDevice(4);
  Graph graph{device.getTarget()};
};

const core::RegionStore &runs(const Tensor &t) { return t.data().regions; }

/// Every run of `t` has `stride` and `count`.
void expectRuns(const Tensor &t, std::size_t n, std::int32_t stride, std::size_t count) {
  ASSERT_EQ(runs(t).size(), n);
  for (const auto &r : runs(t)) {
    EXPECT_EQ(r.stride, stride);
    EXPECT_EQ(r.count, count);
  }
}

} // namespace

TEST(StridedRuns, TransposeOfAContiguousMatrixHoldsOneRunPerColumn) {
  Rig rig;
  const std::size_t M = 6, N = 4;
  Tensor a = rig.graph.addVariable(FLOAT, {M, N}, "a");
  Tensor t = a.transpose();
  expectRuns(t, N, static_cast<std::int32_t>(N), M);
  viewref::expectView(t, {N, M}, viewref::onVar(a, viewref::naiveMap({N, M}, [&](const Shape &i) {
                                                  return i[1] * N + i[0];
                                                })));
  // The public API still reports one contiguous region per element.
  EXPECT_EQ(t.getVarRegions().size(), M * N);
  EXPECT_EQ(t.getContiguousRegions().size(), M * N);
  EXPECT_FALSE(t.isContiguous());
  EXPECT_FALSE(t.containsAliases());
  EXPECT_TRUE(t.intersectsWith(a));
}

TEST(StridedRuns, TransposeOfATransposeIsOneContiguousRunAgain) {
  Rig rig;
  Tensor a = rig.graph.addVariable(FLOAT, {5, 3}, "a");
  Tensor back = a.transpose().transpose();
  expectRuns(back, 1, 1, 15);
  EXPECT_TRUE(back.isContiguous());
  EXPECT_TRUE(back == a);
  EXPECT_EQ(back.getVarRegions().size(), 1u);
}

TEST(StridedRuns, ElementByElementAndWholeRunBuildsGiveTheSameRuns) {
  Rig rig;
  Tensor a = rig.graph.addVariable(FLOAT, {4, 3}, "a");
  Tensor t = a.transpose();
  // The same element sequence gathered one element at a time.
  std::vector<Tensor> parts;
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t r = 0; r < 4; ++r)
      parts.push_back(a[r][c].reshape({1}));
  Tensor gathered = concat(parts).reshape({3, 4});
  EXPECT_TRUE(gathered == t);
  EXPECT_EQ(runs(gathered).size(), runs(t).size());
}

TEST(StridedRuns, SliceOfATransposeCutsItsStridedRuns) {
  Rig rig;
  const std::size_t M = 7, N = 5;
  Tensor a = rig.graph.addVariable(FLOAT, {M, N}, "a");
  Tensor s = a.transpose().slice({1, 2}, {4, 6}); // columns 1..3, rows 2..5 of a
  expectRuns(s, 3, static_cast<std::int32_t>(N), 4);
  viewref::expectView(s, {3, 4}, viewref::onVar(a, viewref::naiveMap({3, 4}, [&](const Shape &i) {
                                                  return (i[1] + 2) * N + (i[0] + 1);
                                                })));
  Tensor flat = a.transpose().flatten().slice(3, 17);
  viewref::expectView(flat, {14}, viewref::onVar(a, viewref::naiveMap({14}, [&](const Shape &i) {
                                                   const std::size_t k = i[0] + 3;
                                                   return (k % M) * N + k / M;
                                                 })));
}

TEST(StridedRuns, ReverseOfASubSampleIsOneNegativeStrideRun) {
  Rig rig;
  Tensor a = rig.graph.addVariable(FLOAT, {20}, "a");
  Tensor sub = a.subSample(3, 0); // 0, 3, ..., 18
  expectRuns(sub, 1, 3, 7);
  Tensor rev = sub.reverse(0); // 18, 15, ..., 0
  expectRuns(rev, 1, -3, 7);
  viewref::expectView(rev, {7}, viewref::onVar(a, viewref::naiveMap({7}, [](const Shape &i) {
                                                 return 18 - 3 * i[0];
                                               })));
  Tensor r = a.reverse(0);
  expectRuns(r, 1, -1, 20);
  EXPECT_TRUE(r.reverse(0) == a);
  EXPECT_TRUE(r.reverse(0).isContiguous());
}

TEST(StridedRuns, SubSampleOfATransposedMatrixMatchesTheIndexMap) {
  Rig rig;
  const std::size_t M = 6, N = 9;
  Tensor a = rig.graph.addVariable(FLOAT, {M, N}, "a");
  Tensor v = a.transpose().subSample(2, 1).reverse(0); // [N, 3]
  viewref::expectView(v, {N, 3}, viewref::onVar(a, viewref::naiveMap({N, 3}, [&](const Shape &i) {
                                                  return (2 * i[1]) * N + (N - 1 - i[0]);
                                                })));
}

TEST(StridedRuns, BroadcastOfOneElementIsOneRepeatingRun) {
  Rig rig;
  Tensor a = rig.graph.addVariable(FLOAT, {4}, "a");
  Tensor b = a.slice(2, 3).broadcast(6, 0);
  expectRuns(b, 1, 0, 6);
  EXPECT_TRUE(b.containsAliases());
  viewref::expectView(b, {6}, viewref::onVar(a, std::vector<std::size_t>(6, 2)));
  Tensor u = a.upsample(3, 0, UpsampleMethod::REPEAT); // 0,0,0,1,1,1,...
  expectRuns(u, 4, 0, 3);
  viewref::expectView(
      u, {12}, viewref::onVar(a, viewref::naiveMap({12}, [](const Shape &i) { return i[0] / 3; })));
}

TEST(StridedRuns, UnitRunsJoinPiecesThatContinueEachOther) {
  core::RegionList l;
  core::appendRegion(l, core::Region::contiguous(0, 5, 6));
  core::appendRegion(l, core::Region::contiguous(0, 8, 12));
  // 5 and 8 form a run of stride 3; 9..11 follow as a contiguous run.
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], core::Region(0, 3, 5, 2));
  EXPECT_EQ(l[1], core::Region(0, 1, 9, 3));
  const core::RegionList units = core::unitRuns(l);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0], core::Region::contiguous(0, 5, 6));
  EXPECT_EQ(units[1], core::Region::contiguous(0, 8, 12));
}

TEST(StridedRuns, ClonesAndTileMappingsOfATransposeMatchTheElementwiseForm) {
  Rig rig;
  const std::size_t M = 8, N = 6;
  Tensor a = rig.graph.addVariable(FLOAT, {M, N}, "a");
  rig.graph.setTileMapping(a.slice(0, 4, 0), 1);
  rig.graph.setTileMapping(a.slice(4, 8, 0), 2);
  Tensor t = a.transpose();
  const auto m = rig.graph.getTileMapping(t);
  ASSERT_EQ(m.size(), 4u);
  std::size_t on1 = 0, on2 = 0;
  for (const auto &iv : m[1])
    on1 += iv.size();
  for (const auto &iv : m[2])
    on2 += iv.size();
  EXPECT_EQ(on1, 24u);
  EXPECT_EQ(on2, 24u);
  EXPECT_EQ(m[1].size(), N); // one interval per transposed row: its first 4 elements
  Tensor c = rig.graph.clone(t, "c");
  EXPECT_EQ(c.shape(), t.shape());
  // The clone stores elements in the source's memory order: its view is a transpose too.
  expectRuns(c, N, static_cast<std::int32_t>(N), M);
  rig.graph.setTileMapping(t, 3);
  const auto after = rig.graph.getTileMapping(a);
  ASSERT_EQ(after[3].size(), 1u);
  EXPECT_EQ(after[3][0].size(), M * N);
}

TEST(StridedRuns, DimShuffleOfAScalarIsTheScalar) {
  Rig rig;
  Tensor s = rig.graph.addVariable(FLOAT, {}, "s");
  Tensor t = s.dimShuffle({});
  EXPECT_TRUE(t == s);
  EXPECT_TRUE(t.isContiguous());
}
