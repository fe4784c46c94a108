// poplin::linspace and meshgrid2d: values, grid layout, types and errors.
#include <gtest/gtest.h>

#include <poplin/MeshGrid.hpp>
#include <poputil/exceptions.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;

namespace {

TEST(MeshGrid, LinspaceCoversTheClosedRangeEvenly) {
  for (auto type : {poplar::FLOAT, poplar::HALF}) {
    LinalgHarness h;
    h.output("v", poplin::linspace(h.graph(), type, -1.0f, 2.0f, 7));
    h.output("one", poplin::linspace(h.graph(), type, 3.0f, 5.0f, 1));
    auto out = h.run();
    ASSERT_EQ(out["v"].size(), 7u);
    for (std::size_t i = 0; i < 7; ++i)
      EXPECT_NEAR(out["v"][i], -1.0 + 0.5 * double(i), type == poplar::HALF ? 1e-3 : 1e-6);
    EXPECT_EQ(out["v"].front(), -1.0);
    EXPECT_EQ(out["v"].back(), 2.0);
    EXPECT_EQ(out["one"], std::vector<double>{3.0});
  }
}

TEST(MeshGrid, GridsRepeatXAlongRowsAndYAlongColumns) {
  LinalgHarness h;
  auto x = poplin::linspace(h.graph(), poplar::FLOAT, 0.0f, 3.0f, 4);
  auto y = poplin::linspace(h.graph(), poplar::FLOAT, 10.0f, 20.0f, 3);
  auto grids = poplin::meshgrid2d(h.graph(), x, y);
  ASSERT_EQ(grids.size(), 2u);
  EXPECT_EQ(grids[0].shape(), (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(grids[1].shape(), (std::vector<std::size_t>{3, 4}));
  h.output("gx", grids[0]);
  h.output("gy", grids[1]);
  auto out = h.run();
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < 4; ++c) {
      EXPECT_EQ(out["gx"][r * 4 + c], double(c));
      EXPECT_EQ(out["gy"][r * 4 + c], 10.0 + 5.0 * double(r));
    }
}

TEST(MeshGrid, BadInputsThrowNamingThem) {
  LinalgHarness h;
  auto &g = h.graph();
  auto m = g.addVariable(poplar::FLOAT, {2, 2}, "m");
  auto v = g.addVariable(poplar::FLOAT, {2}, "v");
  auto vh = g.addVariable(poplar::HALF, {2}, "vh");
  auto expectError = [](auto f, const std::string &culprit) {
    try {
      f();
      FAIL() << "expected poplibs_error naming " << culprit;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
    }
  };
  expectError([&] { poplin::meshgrid2d(g, m, v); }, "x must be a vector");
  expectError([&] { poplin::meshgrid2d(g, v, m); }, "y must be a vector");
  expectError([&] { poplin::meshgrid2d(g, v, vh); }, "y has type half");
  expectError([&] { poplin::linspace(g, poplar::INT, 0, 1, 3); }, "type is int");
}

} // namespace
