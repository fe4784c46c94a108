// popops::sort / sortKeyValue against std::stable_sort on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <popops/Sort.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include "SliceTestUtil.hpp"

using namespace poplar;
using namespace poplar::program;
using slicetest::bytesOf;
using slicetest::valuesOf;

TEST(Sort, SortsEveryColumnOfAFloatMatrixWithNaNLast) {
  for (unsigned tiles : {1u, 16u}) {
    Device d = slicetest::device(tiles);
    Graph graph(d.getTarget());
    popops::addCodelets(graph);
    Tensor t = graph.addVariable(FLOAT, {11, 3}, "t");
    poputil::mapTensorLinearly(graph, t, 1, 1);
    graph.createHostWrite("t", t);
    Sequence prog;
    Tensor sorted = popops::sort(graph, t, 0, prog, "sort");
    graph.createHostRead("sorted", sorted);
    std::vector<float> host(33);
    for (int i = 0; i < 33; ++i)
      host[i] = float((i * 37) % 17) - 8.0f;
    host[4] = std::nanf("");
    auto r =
        slicetest::run(graph, d, prog, {{"t", bytesOf(host)}}, {{"sorted", 33 * sizeof(float)}});
    const auto got = valuesOf<float>(r["sorted"]);
    for (int c = 0; c < 3; ++c) {
      std::vector<float> col;
      for (int i = 0; i < 11; ++i)
        col.push_back(host[i * 3 + c]);
      std::stable_sort(col.begin(), col.end(),
                       [](float a, float b) { return !std::isnan(a) && (std::isnan(b) || a < b); });
      for (int i = 0; i < 11; ++i) {
        if (std::isnan(col[i]))
          EXPECT_TRUE(std::isnan(got[i * 3 + c]));
        else
          EXPECT_EQ(got[i * 3 + c], col[i]) << tiles << " " << i << "," << c;
      }
    }
  }
}

TEST(SortKeyValue, PermutesValuesStablyByIntKeys) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor k = graph.addVariable(INT, {3, 10}, "k");
  Tensor v = graph.addVariable(UNSIGNED_INT, {3, 10}, "v");
  poputil::mapTensorLinearly(graph, k, 1, 1);
  poputil::mapTensorLinearly(graph, v, 1, 1);
  graph.createHostWrite("k", k);
  graph.createHostWrite("v", v);
  graph.createHostRead("k", k);
  Sequence prog;
  Tensor sortedV = popops::sortKeyValue(graph, k, v, 1, prog);
  popops::sortKeyValueInPlace(graph, k, v, 1, prog);
  graph.createHostRead("sortedV", sortedV);
  graph.createHostRead("v", v);
  std::vector<int> keys(30);
  std::vector<unsigned> values(30);
  for (int i = 0; i < 30; ++i) {
    keys[i] = (i * 7) % 5 - 2; // many ties
    values[i] = unsigned(i);
  }
  auto r = slicetest::run(graph, d, prog, {{"k", bytesOf(keys)}, {"v", bytesOf(values)}},
                          {{"k", 120}, {"v", 120}, {"sortedV", 120}});
  std::vector<int> wantK = keys;
  std::vector<unsigned> wantV = values;
  for (int row = 0; row < 3; ++row) {
    std::vector<unsigned> order(10);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      return keys[row * 10 + a] < keys[row * 10 + b];
    });
    for (int i = 0; i < 10; ++i) {
      wantK[row * 10 + i] = keys[row * 10 + order[i]];
      wantV[row * 10 + i] = values[row * 10 + order[i]];
    }
  }
  EXPECT_EQ(valuesOf<int>(r["k"]), wantK);
  EXPECT_EQ(valuesOf<unsigned>(r["v"]), wantV);
  EXPECT_EQ(valuesOf<unsigned>(r["sortedV"]), wantV);
}
