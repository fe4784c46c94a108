// popops::selectScalarFromRows and updateScalarInRows against their references, FLOAT and HALF,
// rows on one tile, rows spread over 16 tiles, and rows split between tiles.
#include <gtest/gtest.h>

#include <cmath>

#include <popops/EncodingConstants.hpp>
#include <popops/SelectScalarFromRows.hpp>
#include <popops/UpdateScalarInRows.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/SelectScalarFromRows.hpp>
#include <reference/UpdateScalarInRows.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const Layout kLayouts[] = {Layout::SINGLE_TILE, Layout::MULTI_TILE};
const std::vector<std::uint32_t> kIndices{3, 0, MASKED_LABEL_CODE, 6, 9, 2, 5, 1, 4};
constexpr std::size_t kRows = 9, kWidth = 7;

std::vector<double> asDoubles(const std::vector<std::uint32_t> &v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Equal element by element, NaN matching NaN.
void expectSame(const std::vector<double> &got, const std::vector<double> &want,
                const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    else
      EXPECT_EQ(got[i], want[i]) << what << " element " << i;
  }
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

TEST(SelectScalarFromRows, PicksTheIndexedElementOfEachRow) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts) {
      Harness h(layout);
      const auto values = reference::roundTo(type, reference::randomValues(kRows * kWidth, 1));
      auto params = h.input(type, {kRows, kWidth}, values, "params");
      auto indices = h.input(poplar::UNSIGNED_INT, {kRows}, asDoubles(kIndices), "indices");
      auto out = popops::selectScalarFromRows(h.graph(), params, indices, h.prog());
      EXPECT_EQ(out.shape(), std::vector<std::size_t>{kRows});
      EXPECT_EQ(out.elementType(), type);
      h.output("out", out);
      expectSame(h.run()["out"], reference::selectScalarFromRows(values, kWidth, kIndices),
                 type.toString() + " " + layoutName(layout));
    }
}

TEST(SelectScalarFromRows, RowsSplitBetweenTilesAreStillRead) {
  Harness h(Layout::MULTI_TILE);
  const auto values = reference::randomValues(4 * 40, 2);
  poplar::Tensor params = h.graph().addVariable(poplar::FLOAT, {4, 40}, "params");
  poputil::mapTensorLinearly(h.graph(), params, 1, 7); // rows cut at every 7 elements
  h.input(params, values, "params");
  const std::vector<std::uint32_t> idx{39, 0, 20, 13};
  auto indices = h.input(poplar::UNSIGNED_INT, {4}, asDoubles(idx), "indices");
  h.output("out", popops::selectScalarFromRows(h.graph(), params, indices, h.prog()));
  expectSame(h.run()["out"],
             reference::selectScalarFromRows(reference::roundTo(poplar::FLOAT, values), 40, idx),
             "split rows");
}

TEST(UpdateScalarInRows, SubtractsOneAtTheIndexMaskedRowsStayAndBadRowsBecomeNaN) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto layout : kLayouts) {
      Harness h(layout);
      const auto values = reference::roundTo(type, reference::randomValues(kRows * kWidth, 3));
      auto params = h.input(type, {kRows, kWidth}, values, "params");
      auto indices = h.input(poplar::UNSIGNED_INT, {kRows}, asDoubles(kIndices), "indices");
      popops::updateScalarInRows(h.graph(), params, indices, h.prog());
      h.output("params", params);
      expectSame(h.run()["params"],
                 reference::roundTo(type, reference::updateScalarInRows(values, kWidth, kIndices)),
                 type.toString() + " " + layoutName(layout));
    }
}

TEST(UpdateScalarInRows, RowsSplitBetweenTilesAreUpdatedInPlace) {
  Harness h(Layout::MULTI_TILE);
  const auto values = reference::roundTo(poplar::FLOAT, reference::randomValues(4 * 40, 4));
  poplar::Tensor params = h.graph().addVariable(poplar::FLOAT, {4, 40}, "params");
  poputil::mapTensorLinearly(h.graph(), params, 1, 7);
  h.input(params, values, "params");
  const std::vector<std::uint32_t> idx{39, 0, 40, 13};
  auto indices = h.input(poplar::UNSIGNED_INT, {4}, asDoubles(idx), "indices");
  popops::updateScalarInRows(h.graph(), params, indices, h.prog());
  h.output("params", params);
  expectSame(h.run()["params"],
             reference::roundTo(poplar::FLOAT, reference::updateScalarInRows(values, 40, idx)),
             "split rows");
}

TEST(ScalarInRows, ResultsAreIdenticalForOneAndTwoHostThreads) {
  auto run = [](unsigned threads) {
    Harness h(Layout::MULTI_TILE);
    auto params = h.input(poplar::HALF, {kRows, kWidth}, reference::randomValues(kRows * kWidth, 5),
                          "params");
    auto indices = h.input(poplar::UNSIGNED_INT, {kRows}, asDoubles(kIndices), "indices");
    h.output("selected", popops::selectScalarFromRows(h.graph(), params, indices, h.prog()));
    popops::updateScalarInRows(h.graph(), params, indices, h.prog());
    h.output("params", params);
    auto out = h.run(threads);
    std::vector<double> all = out["selected"];
    all.insert(all.end(), out["params"].begin(), out["params"].end());
    for (auto &x : all)
      if (std::isnan(x))
        x = -12345; // NaN never compares equal
    return all;
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(ScalarInRowsErrors, ShapesAndTypesAreChecked) {
  Harness h;
  auto params = h.input(poplar::FLOAT, {3, 4}, std::vector<double>(12), "params");
  auto params1d = h.input(poplar::FLOAT, {12}, std::vector<double>(12), "params1d");
  auto intParams = h.input(poplar::INT, {3, 4}, std::vector<double>(12), "intParams");
  auto indices = h.input(poplar::UNSIGNED_INT, {3}, {0, 1, 2}, "indices");
  auto intIndices = h.input(poplar::INT, {3}, {0, 1, 2}, "intIndices");
  auto twoIndices = h.input(poplar::UNSIGNED_INT, {2}, {0, 1}, "twoIndices");
  auto &g = h.graph();
  auto &p = h.prog();
  expectThrowsNaming([&] { popops::selectScalarFromRows(g, params1d, indices, p); },
                     "params must be rank 2");
  expectThrowsNaming([&] { popops::selectScalarFromRows(g, intParams, indices, p); },
                     "params must be FLOAT or HALF");
  expectThrowsNaming([&] { popops::selectScalarFromRows(g, params, intIndices, p); },
                     "indices must be a rank-1 UNSIGNED_INT");
  expectThrowsNaming([&] { popops::updateScalarInRows(g, params, twoIndices, p); },
                     "indices has 2 elements but params float[3,4] has 3 rows");
  expectThrowsNaming([&] { popops::updateScalarInRows(g, intParams, indices, p); },
                     "updateScalarInRows: params must be FLOAT or HALF");
}
