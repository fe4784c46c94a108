// popops::topK / topKWithPermutation against a host selection (top-1 / top-5 accuracy use).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <popops/TopK.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include "SliceTestUtil.hpp"

using namespace poplar;
using namespace poplar::program;
using slicetest::bytesOf;
using slicetest::valuesOf;

namespace {

void topKTest(unsigned tiles, unsigned k, bool largest, popops::SortOrder order) {
  const std::size_t rows = 7, n = 13;
  Device d = slicetest::device(tiles);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(FLOAT, {rows, n}, "logits");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  graph.createHostWrite("t", t);
  Sequence prog;
  auto [values, indices] =
      popops::topKWithPermutation(graph, prog, t, popops::TopKParams(k, largest, order));
  ASSERT_EQ(values.shape(), (std::vector<std::size_t>{rows, k}));
  graph.createHostRead("values", values);
  graph.createHostRead("indices", indices);
  std::vector<float> host(rows * n);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = float((i * 29) % 11) * 0.5f; // ties
  auto r = slicetest::run(graph, d, prog, {{"t", bytesOf(host)}},
                          {{"values", rows * k * 4}, {"indices", rows * k * 4}});
  const auto gotV = valuesOf<float>(r["values"]);
  const auto gotI = valuesOf<unsigned>(r["indices"]);
  for (std::size_t row = 0; row < rows; ++row) {
    const float *x = host.data() + row * n;
    std::vector<unsigned> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    // Best first, ties by lower index.
    std::stable_sort(idx.begin(), idx.end(),
                     [&](unsigned a, unsigned b) { return largest ? x[a] > x[b] : x[a] < x[b]; });
    idx.resize(k);
    if (order == popops::SortOrder::ASCENDING)
      std::stable_sort(idx.begin(), idx.end(), [&](unsigned a, unsigned b) {
        return x[a] < x[b] || (x[a] == x[b] && a < b);
      });
    if (order == popops::SortOrder::DESCENDING)
      std::stable_sort(idx.begin(), idx.end(), [&](unsigned a, unsigned b) {
        return x[a] > x[b] || (x[a] == x[b] && a < b);
      });
    for (unsigned i = 0; i < k; ++i) {
      EXPECT_EQ(gotI[row * k + i], idx[i]) << tiles << " row " << row << " i " << i;
      EXPECT_EQ(gotV[row * k + i], x[idx[i]]);
    }
  }
}

} // namespace

TEST(TopK, Top1IsArgMaxOnOneTile) { topKTest(1, 1, true, popops::SortOrder::NONE); }
TEST(TopK, Top5LargestDescendingOverTiles) { topKTest(16, 5, true, popops::SortOrder::DESCENDING); }
TEST(TopK, SmallestAscending) { topKTest(4, 4, false, popops::SortOrder::ASCENDING); }
TEST(TopK, LargestAscendingWholeRow) { topKTest(4, 13, true, popops::SortOrder::ASCENDING); }

TEST(TopK, UnsignedValuesOnly) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(UNSIGNED_INT, {2, 4}, "u");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  graph.createHostWrite("t", t);
  Sequence prog;
  Tensor top = popops::topK(graph, prog, t, {2, true, popops::SortOrder::DESCENDING});
  graph.createHostRead("top", top);
  const std::vector<unsigned> host{3, 9, 1, 9, 0, 2, 8, 5};
  auto r = slicetest::run(graph, d, prog, {{"t", bytesOf(host)}}, {{"top", 16}});
  EXPECT_EQ(valuesOf<unsigned>(r["top"]), (std::vector<unsigned>{9, 9, 8, 5}));
}
