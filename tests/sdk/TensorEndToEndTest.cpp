// Tensor views checked end to end: base variables spread over tiles are written with distinct
// values through the Engine, views are read back with readTensor and compared with the naive
// host permutation. Also checks that views never copy: writes through one view are seen
// through another.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>

#include "ViewReference.hpp"

using namespace poplar;
using namespace viewref;

namespace {

class TensorEndToEnd : public ::testing::Test {
protected:
  TensorEndToEnd() : device(smallDevice(4)), graph(device.getTarget()) {}
  /// A FLOAT base variable spread over every tile, a few elements per tile.
  Tensor base(const Shape &shape, const std::string &name = "base") {
    Tensor t = graph.addVariable(FLOAT, shape, name);
    poputil::mapTensorLinearly(graph, t, 1, 1);
    return t;
  }
  Device device;
  Graph graph;
};

} // namespace

TEST_F(TensorEndToEnd, SlicesReadTheNaiveElements) {
  const Shape s{3, 4, 5};
  Tensor t = base(s);
  Tensor box = t.slice({1, 1, 1}, {3, 4, 4});
  Tensor col = t.slice(2, 3, 2);
  auto got = readViews(graph, device, {t}, {box, col, t[2][3]});
  EXPECT_EQ(got[0], expectedValues(naiveMap({2, 3, 3}, [&](const Shape &i) {
              return flatOf(s, {i[0] + 1, i[1] + 1, i[2] + 1});
            })));
  EXPECT_EQ(got[1], expectedValues(naiveMap({3, 4, 1}, [&](const Shape &i) {
              return flatOf(s, {i[0], i[1], 2});
            })));
  EXPECT_EQ(got[2],
            expectedValues({flatOf(s, {2, 3, 0}), flatOf(s, {2, 3, 1}), flatOf(s, {2, 3, 2}),
                            flatOf(s, {2, 3, 3}), flatOf(s, {2, 3, 4})}));
}

TEST_F(TensorEndToEnd, Rank4DimShuffleReadsThePermutedOrder) {
  const Shape s{2, 3, 2, 4};
  Tensor t = base(s);
  auto got =
      readViews(graph, device, {t}, {t.dimShuffle({3, 1, 0, 2}), t.dimShuffle({1, 3, 2, 0})});
  EXPECT_EQ(got[0], expectedValues(naiveMap({4, 3, 2, 2}, [&](const Shape &o) {
              return flatOf(s, {o[2], o[1], o[3], o[0]});
            })));
  EXPECT_EQ(got[1], expectedValues(naiveMap({3, 4, 2, 2}, [&](const Shape &o) {
              return flatOf(s, {o[3], o[0], o[2], o[1]});
            })));
}

TEST_F(TensorEndToEnd, TransposeAndDimRollRead) {
  Tensor t = base({3, 5});
  Tensor c = base({2, 3, 4}, "cube");
  auto got = readViews(graph, device, {t, c}, {t.transpose(), c.dimRoll(2, 0)});
  EXPECT_EQ(got[0], expectedValues(naiveMap({5, 3}, [](const Shape &i) {
              return flatOf({3, 5}, {i[1], i[0]});
            })));
  EXPECT_EQ(got[1], expectedValues(naiveMap({4, 2, 3},
                                            [](const Shape &o) {
                                              return flatOf({2, 3, 4}, {o[1], o[2], o[0]});
                                            }),
                                   1));
}

TEST_F(TensorEndToEnd, BroadcastAndUpsampleReadRepeatedElements) {
  Tensor t = base({2, 3});
  auto got = readViews(graph, device, {t},
                       {t.broadcast(2, 1), t.upsample(3, 0), t[1].expand({0}).broadcast(2, 0)});
  EXPECT_EQ(got[0], expectedValues(naiveMap({2, 6}, [](const Shape &i) {
              return flatOf({2, 3}, {i[0], i[1] % 3});
            })));
  EXPECT_EQ(got[1], expectedValues(naiveMap({6, 3}, [](const Shape &i) {
              return flatOf({2, 3}, {i[0] / 3, i[1]});
            })));
  EXPECT_EQ(got[2], expectedValues({3, 4, 5, 3, 4, 5}));
}

TEST_F(TensorEndToEnd, ReverseAndSubSampleRead) {
  Tensor t = base({4, 5});
  auto got = readViews(graph, device, {t}, {t.reverse(1), t.subSample(2, 1).reverse(0)});
  EXPECT_EQ(got[0], expectedValues(naiveMap({4, 5}, [](const Shape &i) {
              return flatOf({4, 5}, {i[0], 4 - i[1]});
            })));
  EXPECT_EQ(got[1], expectedValues(naiveMap({4, 3}, [](const Shape &i) {
              return flatOf({4, 5}, {3 - i[0], 2 * i[1]});
            })));
}

TEST_F(TensorEndToEnd, ConcatOfThreeBasesAlongEachDimensionReads) {
  Tensor a = base({2, 3}, "a");
  Tensor b = base({2, 3}, "b");
  Tensor c = base({2, 3}, "c");
  auto got = readViews(graph, device, {a, b, c}, {concat({a, b, c}, 0), concat({a, b, c}, 1)});
  std::vector<float> dim0, dim1;
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < 6; ++i)
      dim0.push_back(baseValue(k, i));
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t j = 0; j < 3; ++j)
        dim1.push_back(baseValue(k, r * 3 + j));
  EXPECT_EQ(got[0], dim0);
  EXPECT_EQ(got[1], dim1);
}

TEST_F(TensorEndToEnd, AppendAndReshapeRead) {
  Tensor a = base({2, 2}, "a");
  Tensor b = base({2}, "b");
  auto got =
      readViews(graph, device, {a, b},
                {append(a, b, 1).reshape({3, 2}), a.flatten().reshapePartial(0, 1, {2, 2, 1})});
  EXPECT_EQ(got[0], (std::vector<float>{baseValue(0, 0), baseValue(0, 1), baseValue(1, 0),
                                        baseValue(0, 2), baseValue(0, 3), baseValue(1, 1)}));
  EXPECT_EQ(got[1], expectedValues({0, 1, 2, 3}));
}

TEST_F(TensorEndToEnd, ViewOfAViewWritesThroughToTheBase) {
  const Shape s{4, 6};
  Tensor t = base(s);
  // A transposed box of a reversed view: three levels of views over one variable.
  Tensor view = t.reverse(0).slice({1, 2}, {3, 5}).transpose();
  graph.createHostWrite("base", t);
  graph.createHostWrite("view", view);
  graph.createHostRead("base", t);
  Engine engine(graph, program::Sequence{});
  engine.load(device);
  std::vector<float> init(24, -1.0f);
  engine.writeTensor("base", init.data(), init.data() + init.size());
  std::vector<float> values(view.numElements());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(100 + i);
  engine.writeTensor("view", values.data(), values.data() + values.size());
  std::vector<float> got(24);
  engine.readTensor("base", got.data(), got.data() + got.size());
  // Naive: view[j][i] = reversed[i + 1][j + 2] = t[4 - 1 - (i + 1)][j + 2].
  std::vector<float> expect = init;
  forEachIndex({3, 2}, [&](const Shape &o) {
    const std::size_t j = o[0], i = o[1];
    expect[flatOf(s, {2 - i, j + 2})] = values[flatOf({3, 2}, o)];
  });
  EXPECT_EQ(got, expect);
}

TEST_F(TensorEndToEnd, WriteThroughOneHandleIsReadThroughAnother) {
  Tensor t = base({3, 4});
  Tensor writer = t.dimShuffle({1, 0}).reverse(1); // [4,3]
  Tensor reader = t.slice(1, 3, 1).flatten();      // columns 1..2, row-major
  graph.createHostWrite("w", writer);
  graph.createHostRead("r", reader);
  Engine engine(graph, program::Sequence{});
  engine.load(device);
  std::vector<float> in(12);
  for (std::size_t i = 0; i < 12; ++i)
    in[i] = static_cast<float>(i * 10);
  engine.writeTensor("w", in.data(), in.data() + in.size());
  std::vector<float> out(6);
  engine.readTensor("r", out.data(), out.data() + out.size());
  // writer[c][r] = t[2 - r][c], so t[row][col] = in[col * 3 + (2 - row)].
  std::vector<float> expect;
  for (std::size_t row = 0; row < 3; ++row)
    for (std::size_t col = 1; col < 3; ++col)
      expect.push_back(in[col * 3 + (2 - row)]);
  EXPECT_EQ(out, expect);
}

TEST_F(TensorEndToEnd, ReinterpretReadsTheRawBits) {
  Tensor f = base({5}, "f");
  graph.createHostWrite("f", f);
  graph.createHostRead("bits", f.reverse(0).reinterpret(UNSIGNED_INT));
  Engine engine(graph, program::Sequence{});
  engine.load(device);
  const float in[5] = {1.0f, -2.5f, 0.0f, 3.25f, 1e-3f};
  engine.writeTensor("f", in, in + 5);
  std::uint32_t bits[5] = {};
  engine.readTensor("bits", bits, bits + 5);
  for (std::size_t i = 0; i < 5; ++i) {
    std::uint32_t expect;
    std::memcpy(&expect, &in[4 - i], 4);
    EXPECT_EQ(bits[i], expect) << i;
  }
}

TEST_F(TensorEndToEnd, SetInitialValueOnAViewIsVisibleAfterLoad) {
  Tensor t = base({3, 3});
  // Column 1 gets 7,8,9 (through a view); the diagonal gets 5 (a broadcast value).
  graph.setInitialValue<float>(t.slice(1, 2, 1).flatten(), {7.0f, 8.0f, 9.0f});
  graph.setInitialValue(concat({t[0].slice(0, 1), t[2].slice(2, 3)}), 5.0f);
  graph.createHostRead("t", t);
  Engine engine(graph, program::Sequence{});
  engine.load(device);
  std::vector<float> got(9, -1.0f);
  engine.readTensor("t", got.data(), got.data() + got.size());
  EXPECT_EQ(got, (std::vector<float>{5, 7, 0, 0, 8, 0, 0, 9, 5}));
}

TEST_F(TensorEndToEnd, ViewsOfAVariableMappedInTwoPiecesRead) {
  Tensor t = graph.addVariable(FLOAT, {8}, "t");
  // Tile 3 holds the first half, tile 0 the second: the view crosses the split backwards.
  graph.setTileMapping(t.slice(0, 4), 3);
  graph.setTileMapping(t.slice(4, 8), 0);
  auto got = readViews(graph, device, {t}, {t.slice(2, 7).reverse(0)});
  EXPECT_EQ(got[0], expectedValues({6, 5, 4, 3, 2}));
}
