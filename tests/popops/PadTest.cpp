// popops::pad (constant, tensor-valued, edge and reflect padding; negative padding cuts) against
// reference::pad, on one tile and spread over 16, FLOAT and HALF.
#include <gtest/gtest.h>

#include <poplar/Program.hpp>
#include <popops/Pad.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/Pad.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const Layout kLayouts[] = {Layout::SINGLE_TILE, Layout::MULTI_TILE};

/// Copies `padded` (a view holding constants and the input) into a fresh linearly mapped
/// variable and marks it as output "out".
void readPadded(Harness &h, const poplar::Tensor &padded) {
  poplar::Tensor out = h.graph().addVariable(padded.elementType(), padded.shape(), "out");
  poputil::mapTensorLinearly(h.graph(), out, 1, 1);
  h.prog().add(poplar::program::Copy(padded, out));
  h.output("out", out);
}

reference::Array array(const std::vector<std::size_t> &shape, const std::vector<double> &v) {
  return reference::Array{shape, v};
}

template <class Fn> void expectThrowsNaming(Fn fn, const std::string &culprit) {
  try {
    fn();
    FAIL() << "expected poputil::poplibs_error naming " << culprit;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

} // namespace

TEST(Pad, ConstantPadsEveryDimensionWithTheValueAndNegativePaddingCuts) {
  const std::vector<std::size_t> shape{3, 4, 2};
  const std::vector<std::ptrdiff_t> lower{1, 2, 0}, upper{2, -1, 1};
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts) {
      Harness h(layout);
      const auto in = reference::roundTo(type, reference::randomValues(24, 3));
      auto t = h.input(type, shape, in, "t");
      auto padded = popops::pad(h.graph(), t, lower, upper, 2.5f);
      EXPECT_EQ(padded.shape(), (std::vector<std::size_t>{6, 5, 3}));
      readPadded(h, padded);
      const auto want =
          reference::pad(array(shape, in), lower, upper, reference::PadMode::Constant, 2.5);
      EXPECT_EQ(h.run()["out"], want.values) << type.toString() << " " << layoutName(layout);
    }
}

TEST(Pad, IntegerValuePadsAnIntTensorExactly) {
  Harness h;
  std::vector<double> in{1, -2, 3, -4, 5, -6};
  auto t = h.input(poplar::INT, {2, 3}, in, "t");
  auto padded = popops::pad(h.graph(), t, {2, -1}, {-1, 3}, 16777217);
  readPadded(h, padded);
  const auto want =
      reference::pad(array({2, 3}, in), {2, -1}, {-1, 3}, reference::PadMode::Constant, 16777217);
  EXPECT_EQ(h.run()["out"], want.values);
}

TEST(Pad, TensorValueIsBroadcastIntoThePadding) {
  for (auto layout : kLayouts) {
    Harness h(layout);
    const auto in = reference::randomValues(12, 4);
    auto t = h.input(poplar::FLOAT, {3, 4}, in, "t");
    auto val = h.input(poplar::FLOAT, {}, {-7.5}, "val");
    auto padded = popops::pad(h.graph(), t, {1, 1}, {2, 0}, val);
    readPadded(h, padded);
    const auto want =
        reference::pad(array({3, 4}, in), {1, 1}, {2, 0}, reference::PadMode::Constant, -7.5);
    EXPECT_EQ(h.run()["out"], reference::roundTo(poplar::FLOAT, want.values));
  }
}

TEST(Pad, OneDimensionFormPadsOnlyThatDimension) {
  Harness h;
  const auto in = reference::randomValues(12, 5);
  auto t = h.input(poplar::FLOAT, {3, 4}, in, "t");
  auto padded = popops::pad(h.graph(), t, 2, -1, 1, 1.0f);
  EXPECT_EQ(padded.shape(), (std::vector<std::size_t>{3, 5}));
  readPadded(h, padded);
  const auto want =
      reference::pad(array({3, 4}, in), {0, 2}, {0, -1}, reference::PadMode::Constant, 1.0);
  EXPECT_EQ(h.run()["out"], reference::roundTo(poplar::FLOAT, want.values));
}

TEST(Pad, EdgeRepeatsTheNearestElement) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts) {
      Harness h(layout);
      const auto in = reference::roundTo(type, reference::randomValues(20, 6));
      auto t = h.input(type, {4, 5}, in, "t");
      auto padded = popops::pad(t, {3, -2}, {1, 4}, popops::padding::Type::EDGE);
      readPadded(h, padded);
      const auto want =
          reference::pad(array({4, 5}, in), {3, -2}, {1, 4}, reference::PadMode::Edge);
      EXPECT_EQ(h.run()["out"], want.values) << type.toString() << " " << layoutName(layout);
    }
}

TEST(Pad, ReflectMirrorsWithoutTheEdge) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts) {
      Harness h(layout);
      const auto in = reference::roundTo(type, reference::randomValues(20, 7));
      auto t = h.input(type, {4, 5}, in, "t");
      auto padded = popops::pad(t, {3, 1}, {2, 4}, popops::padding::Type::REFLECT);
      readPadded(h, padded);
      const auto want =
          reference::pad(array({4, 5}, in), {3, 1}, {2, 4}, reference::PadMode::Reflect);
      EXPECT_EQ(h.run()["out"], want.values) << type.toString() << " " << layoutName(layout);
    }
}

TEST(Pad, ReflectOfARowIsTheNumpyExample) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {3}, {1, 2, 3}, "t");
  readPadded(h, popops::pad(t, 2, 2, 0, popops::padding::Type::REFLECT));
  EXPECT_EQ(h.run()["out"], (std::vector<double>{3, 2, 1, 2, 3, 2, 1}));
}

TEST(Pad, MappingMethodPlacesTheNewElements) {
  Harness h(Layout::MULTI_TILE);
  poplar::Graph &g = h.graph();
  poplar::Tensor t = g.addVariable(poplar::FLOAT, {2, 16}, "t");
  poputil::mapTensorLinearly(g, t, 1, 1); // two elements per tile
  // ZERO: all padding on tile 0.
  auto zero = popops::pad(g, t, {0, 0}, {0, 3}, 0.0f, popops::padding::MappingMethod::ZERO);
  auto zeroMap = g.getTileMapping(zero.slice(16, 19, 1));
  std::size_t onTileZero = 0;
  for (const auto &interval : zeroMap[0])
    onTileZero += interval.size();
  EXPECT_EQ(onTileZero, 6u);
  for (unsigned tile = 1; tile < zeroMap.size(); ++tile)
    EXPECT_TRUE(zeroMap[tile].empty()) << tile;
  // EDGE: each padding element on its nearest edge element's tile.
  auto edge = popops::pad(g, t, {0, 2}, {0, 2}, 0.0f, popops::padding::MappingMethod::EDGE);
  auto tileOf = [&](const poplar::Tensor &x) {
    auto m = g.getTileMapping(x);
    for (unsigned tile = 0; tile < m.size(); ++tile)
      if (!m[tile].empty())
        return tile;
    return ~0u;
  };
  for (unsigned r = 0; r < 2; ++r) {
    const unsigned firstTile = tileOf(t[r][0]), lastTile = tileOf(t[r][15]);
    for (unsigned c : {0u, 1u})
      EXPECT_EQ(tileOf(edge[r][c]), firstTile) << r << "," << c;
    for (unsigned c : {18u, 19u})
      EXPECT_EQ(tileOf(edge[r][c]), lastTile) << r << "," << c;
  }
  // NONE: the padding is left for the caller to map.
  auto none = popops::pad(g, t, {1, 0}, {0, 0}, 0.0f, popops::padding::MappingMethod::NONE);
  bool complete = true;
  g.getTileMapping(none, &complete);
  EXPECT_FALSE(complete);
}

TEST(Pad, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto run = [](unsigned threads) {
    Harness h(Layout::MULTI_TILE);
    auto t = h.input(poplar::HALF, {6, 7}, reference::randomValues(42, 8), "t");
    auto a = popops::pad(h.graph(), t, {1, 2}, {3, -1}, 0.5f, popops::padding::MappingMethod::EDGE);
    auto b = popops::pad(a, {2, 2}, {1, 1}, popops::padding::Type::REFLECT);
    readPadded(h, b);
    return h.run(threads)["out"];
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(Pad, EmptyPaddingReturnsTheTensorItself) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {0, 3}, {}, "t");
  auto padded = popops::pad(h.graph(), t, {0, 1}, {0, 1}, 1.0f);
  EXPECT_EQ(padded.shape(), (std::vector<std::size_t>{0, 5}));
  auto grown = popops::pad(h.graph(), t, {2, 0}, {0, 0}, 4.0f);
  EXPECT_EQ(grown.shape(), (std::vector<std::size_t>{2, 3}));
}

TEST(PadErrors, PaddingVectorsMustMatchTheRank) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {2, 3}, std::vector<double>(6), "t");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, {1}, {1, 1}); }, "paddingLower");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, {1, 1}, {1, 1, 1}); }, "paddingUpper");
  expectThrowsNaming(
      [&] {
        popops::pad(t, {1, 1}, {1}, popops::padding::Type::EDGE);
      },
      "paddingUpper");
}

TEST(PadErrors, CuttingMoreThanTheDimensionThrows) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {2, 3}, std::vector<double>(6), "t");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, {0, -4}, {0, 0}); }, "paddingLower[1]");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, {-1, 0}, {-2, 0}); }, "paddingUpper[0]");
}

TEST(PadErrors, DimMustBeATensorDimension) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {2, 3}, std::vector<double>(6), "t");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, 1, 1, 2u); }, "dim 2");
  expectThrowsNaming([&] { popops::pad(t, 1, 1, 5u, popops::padding::Type::EDGE); }, "dim 5");
}

TEST(PadErrors, TensorValueMustBeOneElementOfTheSameType) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {2, 3}, std::vector<double>(6), "t");
  auto two = h.input(poplar::FLOAT, {2}, {1, 2}, "two");
  auto intVal = h.input(poplar::INT, {1}, {1}, "intVal");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, {1, 1}, {1, 1}, two); }, "val");
  expectThrowsNaming([&] { popops::pad(h.graph(), t, {1, 1}, {1, 1}, intVal); }, "int");
}

TEST(PadErrors, ReflectBeyondTheTensorAndEdgeOfEmptyThrow) {
  Harness h;
  auto t = h.input(poplar::FLOAT, {2, 3}, std::vector<double>(6), "t");
  expectThrowsNaming([&] { popops::pad(t, 0, 3, 1u, popops::padding::Type::REFLECT); },
                     "dimension 1");
  auto empty = h.input(poplar::FLOAT, {0, 3}, {}, "empty");
  expectThrowsNaming([&] { popops::pad(empty, 1, 0, 0u, popops::padding::Type::EDGE); },
                     "dimension 0");
  expectThrowsNaming(
      [&] {
        popops::pad(h.graph(), empty, {1, 0}, {0, 0}, 0.0f, popops::padding::MappingMethod::EDGE);
      },
      "MappingMethod::EDGE");
}
