// popops::hasNaN / hasNaNOrInf against reference::hasNaN / hasNaNOrInf, FLOAT and HALF, on one
// tile and spread over 16, with the special value on each of several tiles.
#include <gtest/gtest.h>

#include <limits>

#include <popops/NaN.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/NaN.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const Layout kLayouts[] = {Layout::SINGLE_TILE, Layout::MULTI_TILE};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// Runs both checks on `values` ([5][13]) and returns {hasNaN, hasNaNOrInf}.
std::pair<double, double> check(const poplar::Type &type, Layout layout,
                                const std::vector<double> &values, unsigned threads = 1) {
  Harness h(layout);
  auto src = h.input(type, {5, 13}, values, "src");
  auto nan = popops::hasNaN(h.graph(), src, h.prog());
  auto nanOrInf = popops::hasNaNOrInf(h.graph(), src, h.prog());
  EXPECT_EQ(nan.elementType(), poplar::BOOL);
  EXPECT_EQ(nan.rank(), 0u);
  h.output("nan", nan);
  h.output("nanOrInf", nanOrInf);
  auto out = h.run(threads);
  return {out["nan"][0], out["nanOrInf"][0]};
}

} // namespace

TEST(NaN, FiniteValuesHaveNeitherNaNNorInf) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts) {
      const auto v = reference::randomValues(65, 1, -100, 100);
      EXPECT_EQ(check(type, layout, v), std::make_pair(0.0, 0.0))
          << type.toString() << " " << layoutName(layout);
    }
}

TEST(NaN, ANaNAnywhereIsFound) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts)
      for (std::size_t at : {0u, 17u, 40u, 64u}) {
        auto v = reference::randomValues(65, 2);
        v[at] = kNaN;
        const auto want =
            std::make_pair(double(reference::hasNaN(v)), double(reference::hasNaNOrInf(v)));
        EXPECT_EQ(check(type, layout, v), want)
            << type.toString() << " " << layoutName(layout) << " at " << at;
      }
}

TEST(NaN, InfinityCountsOnlyForHasNaNOrInf) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts)
      for (double special : {kInf, -kInf}) {
        auto v = reference::randomValues(65, 3);
        v[33] = special;
        EXPECT_EQ(check(type, layout, v), std::make_pair(0.0, 1.0))
            << type.toString() << " " << layoutName(layout) << " " << special;
      }
}

TEST(NaN, HalfOverflowIsAnInfinity) {
  auto v = reference::randomValues(65, 4);
  v[12] = 70000.0; // beyond HALF's largest finite value (65504)
  const auto rounded = reference::roundTo(poplar::HALF, v);
  EXPECT_EQ(
      check(poplar::HALF, Layout::MULTI_TILE, v),
      std::make_pair(double(reference::hasNaN(rounded)), double(reference::hasNaNOrInf(rounded))));
  EXPECT_EQ(check(poplar::FLOAT, Layout::MULTI_TILE, v), std::make_pair(0.0, 0.0));
}

TEST(NaN, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto v = reference::randomValues(65, 5);
  v[50] = kInf;
  EXPECT_EQ(check(poplar::FLOAT, Layout::MULTI_TILE, v, 1),
            check(poplar::FLOAT, Layout::MULTI_TILE, v, 2));
}

TEST(NaN, EmptyTensorHasNoNaN) {
  Harness h;
  auto src = h.input(poplar::FLOAT, {0, 4}, {}, "src");
  h.output("nan", popops::hasNaN(h.graph(), src, h.prog()));
  h.output("nanOrInf", popops::hasNaNOrInf(h.graph(), src, h.prog()));
  auto out = h.run();
  EXPECT_EQ(out["nan"], std::vector<double>{0});
  EXPECT_EQ(out["nanOrInf"], std::vector<double>{0});
}

TEST(NaNErrors, IntegerSourceIsRefused) {
  Harness h;
  auto src = h.input(poplar::INT, {4}, {1, 2, 3, 4}, "src");
  for (int form = 0; form < 2; ++form) {
    try {
      if (form == 0)
        popops::hasNaN(h.graph(), src, h.prog());
      else
        popops::hasNaNOrInf(h.graph(), src, h.prog());
      FAIL() << "expected poplibs_error";
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find("src must be FLOAT or HALF"), std::string::npos)
          << e.what();
    }
  }
}
