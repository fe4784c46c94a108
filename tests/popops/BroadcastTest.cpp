// NumPy broadcasting in popops element-wise operations: scalars (tensors and host
// constants), matching trailing dimensions, and size-1 dimensions on both sides.
#include <gtest/gtest.h>

#include <popops/ElementWise.hpp>

#include "ElementWiseTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;
using ewtest::Fixture;

TEST(Broadcast, ScalarTensorAndHostConstant) {
  Fixture f(4);
  Tensor m = f.var(FLOAT, {9, 11}, "m");
  Tensor s = f.var(FLOAT, {}, "s");
  Tensor one = f.var(FLOAT, {1}, "one");
  Tensor a = popops::mul(f.graph, s, m, f.prog);    // scalar first
  Tensor b = popops::add(f.graph, m, 2.5f, f.prog); // host constant
  Tensor c = popops::sub(f.graph, 1.0f, m, f.prog); // host constant first
  Tensor d = popops::div(f.graph, m, one, f.prog);  // one-element [1]
  EXPECT_EQ(a.shape(), m.shape());
  EXPECT_EQ(f.graph.getTileMapping(a), f.graph.getTileMapping(m));
  for (auto [n, t] : {std::pair{"a", a}, {"b", b}, {"c", c}, {"d", d}})
    f.read(n, t);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto mv = ewtest::randomFloats(99, -3, 3, 30);
  ewtest::write(engine, "m", mv);
  ewtest::write(engine, "s", std::vector<float>{-1.5f});
  ewtest::write(engine, "one", std::vector<float>{4.0f});
  engine.run();
  const auto ga = ewtest::read<float>(engine, "a", 99), gb = ewtest::read<float>(engine, "b", 99),
             gc = ewtest::read<float>(engine, "c", 99), gd = ewtest::read<float>(engine, "d", 99);
  for (std::size_t i = 0; i < 99; ++i) {
    EXPECT_EQ(ga[i], -1.5f * mv[i]);
    EXPECT_EQ(gb[i], mv[i] + 2.5f);
    EXPECT_EQ(gc[i], 1.0f - mv[i]);
    EXPECT_EQ(gd[i], mv[i] / 4.0f);
  }
}

TEST(Broadcast, TrailingDimensionsMatchAndOutputMapsLikeTheFullInput) {
  Fixture f(8);
  Tensor row = f.var(FLOAT, {13}, "row");
  Tensor m = f.var(FLOAT, {5, 13}, "m");
  Tensor out = popops::add(f.graph, row, m, f.prog); // the full-shape input is second
  EXPECT_EQ(out.shape(), (std::vector<std::size_t>{5, 13}));
  EXPECT_EQ(f.graph.getTileMapping(out), f.graph.getTileMapping(m));
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto rv = ewtest::randomFloats(13, -3, 3, 31);
  const auto mv = ewtest::randomFloats(65, -3, 3, 32);
  ewtest::write(engine, "row", rv);
  ewtest::write(engine, "m", mv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", 65);
  for (std::size_t r = 0; r < 5; ++r)
    for (std::size_t c = 0; c < 13; ++c)
      EXPECT_EQ(got[r * 13 + c], rv[c] + mv[r * 13 + c]);
}

TEST(Broadcast, SizeOneDimensionsOnBothSides) {
  Fixture f(4);
  Tensor col = f.var(INT, {4, 1}, "col");
  Tensor row = f.var(INT, {1, 6}, "row");
  Tensor out = popops::map(f.graph, pe::_1 * 10 + pe::_2, {col, row}, f.prog);
  EXPECT_EQ(out.shape(), (std::vector<std::size_t>{4, 6}));
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  ewtest::write(engine, "col", std::vector<int>{1, 2, 3, 4});
  ewtest::write(engine, "row", std::vector<int>{0, 1, 2, 3, 4, 5});
  engine.run();
  const auto got = ewtest::read<int>(engine, "out", 24);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c)
      EXPECT_EQ(got[r * 6 + c], (r + 1) * 10 + c);
}

TEST(Broadcast, HalfScalarAndBoolScalar) {
  Fixture f(4);
  Tensor h = f.var(HALF, {3, 7}, "h");
  Tensor hs = f.var(HALF, {1}, "hs");
  Tensor flag = f.var(BOOL, {}, "flag");
  Tensor prod = popops::mul(f.graph, h, hs, f.prog);
  Tensor sel = popops::select(f.graph, h, prod, flag.reshape({1}), f.prog);
  f.read("prod", prod);
  f.read("sel", sel);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto hv = ewtest::toHalf(ewtest::randomFloats(21, -3, 3, 33));
  ewtest::write(engine, "h", hv);
  ewtest::write(engine, "hs", ewtest::toHalf({0.75f}));
  ewtest::write(engine, "flag", std::vector<unsigned char>{0});
  engine.run();
  const auto x = ewtest::fromHalf(hv);
  const auto gp = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "prod", 21));
  const auto gs = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "sel", 21));
  for (std::size_t i = 0; i < 21; ++i) {
    EXPECT_EQ(gp[i], ewtest::roundHalf(x[i] * 0.75f));
    EXPECT_EQ(gs[i], gp[i]);
  }
}

TEST(Broadcast, InPlaceIntoTheFullShapeWithABroadcastOperand) {
  Fixture f(4);
  Tensor m = f.var(FLOAT, {6, 10}, "m");
  Tensor v = f.var(FLOAT, {10}, "v");
  popops::subInPlace(f.graph, m, v, f.prog);
  f.read("m", m);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto mv = ewtest::randomFloats(60, -3, 3, 34);
  const auto vv = ewtest::randomFloats(10, -3, 3, 35);
  ewtest::write(engine, "m", mv);
  ewtest::write(engine, "v", vv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "m", 60);
  for (std::size_t i = 0; i < 60; ++i)
    EXPECT_EQ(got[i], mv[i] - vv[i % 10]);
}
