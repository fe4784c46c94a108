// dynamicSlice / dynamicUpdate against host loops, including wrapping offsets.
#include <gtest/gtest.h>

#include <poplar/Half.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "SliceTestUtil.hpp"

using namespace poplar;
using namespace poplar::program;
using slicetest::bytesOf;
using slicetest::valuesOf;

TEST(DynamicSlice, TwoDimSliceWithWrapMatchesHostLoop) {
  for (unsigned tiles : {1u, 16u}) {
    Device d = slicetest::device(tiles);
    Graph graph(d.getTarget());
    popops::addCodelets(graph);
    Tensor t = graph.addVariable(FLOAT, {9, 7}, "t");
    poputil::mapTensorLinearly(graph, t, 1, 1);
    Tensor off = graph.addVariable(UNSIGNED_INT, {2}, "off");
    graph.setTileMapping(off, 0);
    graph.createHostWrite("t", t);
    graph.createHostWrite("off", off);
    Sequence prog;
    Tensor s = popops::dynamicSlice(graph, t, off, {0, 1}, {3, 4}, prog, "ds");
    ASSERT_EQ(s.shape(), (std::vector<std::size_t>{3, 4}));
    graph.createHostRead("s", s);
    std::vector<float> host(63);
    for (int i = 0; i < 63; ++i)
      host[i] = float(i) - 20.0f;
    const std::vector<unsigned> offsets{7, 5}; // rows 7,8,0; cols 5,6,0,1 (wrap)
    auto r = slicetest::run(graph, d, prog, {{"t", bytesOf(host)}, {"off", bytesOf(offsets)}},
                            {{"s", 12 * sizeof(float)}});
    const auto got = valuesOf<float>(r["s"]);
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 4; ++j)
        EXPECT_EQ(got[i * 4 + j], host[((7 + i) % 9) * 7 + (5 + j) % 7]) << tiles << i << j;
  }
}

// dynamicSliceWithOutput (PopLibs) writes the same slice as dynamicSlice into a tensor the
// caller made, leaving its mapping alone.
TEST(DynamicSlice, WithOutputWritesTheSliceIntoTheGivenTensor) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(FLOAT, {6, 5}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor off = graph.addVariable(UNSIGNED_INT, {1}, "off");
  graph.setTileMapping(off, 0);
  Tensor out = graph.addVariable(FLOAT, {2, 5}, "out");
  graph.setTileMapping(out, 3);
  graph.createHostWrite("t", t);
  graph.createHostWrite("off", off);
  graph.createHostRead("out", out);
  Sequence prog;
  popops::dynamicSliceWithOutput(graph, out, t, off, {0}, {2}, prog, "ds");
  std::vector<float> host(30);
  for (int i = 0; i < 30; ++i)
    host[i] = 1.5f * float(i);
  const std::vector<unsigned> offsets{3};
  auto r = slicetest::run(graph, d, prog, {{"t", bytesOf(host)}, {"off", bytesOf(offsets)}},
                          {{"out", 10 * sizeof(float)}});
  const auto got = valuesOf<float>(r["out"]);
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 5; ++j)
      EXPECT_EQ(got[i * 5 + j], host[(3 + i) * 5 + j]) << i << j;
  EXPECT_EQ(graph.getTileMapping(out)[3].size(), 1u);
  Tensor wrong = graph.addVariable(FLOAT, {3, 5}, "wrong");
  EXPECT_THROW(popops::dynamicSliceWithOutput(graph, wrong, t, off, {0}, {2}, prog),
               poputil::poplibs_error);
}

TEST(DynamicUpdate, WritesSliceOfATransposedViewAndOffsetBeyondEndReadsAsZero) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor base = graph.addVariable(INT, {5, 6}, "base");
  poputil::mapTensorLinearly(graph, base, 1, 1);
  Tensor t = base.transpose(); // [6][5] view
  Tensor s = graph.addVariable(INT, {2, 5}, "s");
  poputil::mapTensorLinearly(graph, s, 1, 1);
  Tensor off = graph.addVariable(UNSIGNED_INT, {1}, "off");
  graph.setTileMapping(off, 2);
  graph.createHostWrite("base", base);
  graph.createHostWrite("s", s);
  graph.createHostWrite("off", off);
  graph.createHostRead("base", base);
  Sequence prog;
  popops::dynamicUpdate(graph, t, s, off, {0}, {2}, prog);
  std::vector<int> host(30), sHost(10);
  for (int i = 0; i < 30; ++i)
    host[i] = i;
  for (int i = 0; i < 10; ++i)
    sHost[i] = -1 - i;
  for (unsigned offset : {4u, 17u}) {
    auto r = slicetest::run(
        graph, d, prog,
        {{"base", bytesOf(host)}, {"s", bytesOf(sHost)}, {"off", bytesOf(std::vector{offset})}},
        {{"base", 30 * sizeof(int)}});
    const auto got = valuesOf<int>(r["base"]);
    std::vector<int> want = host;
    const unsigned start = offset < 6 ? offset : 0;
    for (unsigned i = 0; i < 2; ++i)
      for (unsigned c = 0; c < 5; ++c)
        want[c * 6 + (start + i) % 6] = sHost[i * 5 + c]; // t[r][c] = base[c][r]
    EXPECT_EQ(got, want) << offset;
  }
}

TEST(DynamicUpdate, HalfTwoDimUpdateRoundTripsThroughSlice) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(HALF, {4, 6}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor s = graph.addVariable(HALF, {2, 3}, "s");
  poputil::mapTensorLinearly(graph, s);
  Tensor off = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {1, 2}, "off");
  graph.setTileMapping(off, 0);
  graph.createHostWrite("t", t);
  graph.createHostWrite("s", s);
  graph.createHostRead("t", t);
  Sequence prog;
  popops::dynamicUpdate(graph, t, s, off, {0, 1}, {2, 3}, prog);
  std::vector<half> host(24), sHost(6);
  for (int i = 0; i < 24; ++i)
    host[i] = half(float(i));
  for (int i = 0; i < 6; ++i)
    sHost[i] = half(-0.5f * float(i + 1));
  auto r = slicetest::run(graph, d, prog, {{"t", bytesOf(host)}, {"s", bytesOf(sHost)}},
                          {{"t", 24 * sizeof(half)}});
  const auto got = valuesOf<half>(r["t"]);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      const bool inSlice = i >= 1 && i < 3 && j >= 2 && j < 5;
      const float want = inSlice ? float(sHost[(i - 1) * 3 + (j - 2)]) : float(host[i * 6 + j]);
      EXPECT_EQ(float(got[i * 6 + j]), want) << i << "," << j;
    }
}
