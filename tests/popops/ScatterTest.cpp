// popops::scatter (replace and update-computation forms) against reference::scatter, for the
// XLA dimension layouts TensorFlow produces, on one tile and spread over 16.
#include <gtest/gtest.h>

#include <cmath>

#include <popops/ElementWise.hpp>
#include <popops/Scatter.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Common.hpp>
#include <reference/Scatter.hpp>

#include "PopopsModuleHarness.hpp"

using popops_test::Harness;
using popops_test::Layout;

namespace {

const Layout kLayouts[] = {Layout::SINGLE_TILE, Layout::MULTI_TILE};

struct Case {
  std::string name;
  std::vector<std::size_t> operandShape, indicesShape, updatesShape;
  std::vector<std::int64_t> indices;
  reference::ScatterDims dims;
};

std::vector<Case> cases() {
  return {
      // Rows of a [5][3] matrix (tf.scatter_nd with [n][1] indices); a duplicate and a row 7.
      {"rows", {5, 3}, {4, 1}, {4, 3}, {3, 0, 7, 3}, {1, {1}, {0}, {0}}},
      // Single elements of a [4][5] matrix at (row, col) pairs; (4, 0) is outside.
      {"elements",
       {4, 5},
       {6, 2},
       {6},
       {0, 0, 3, 4, 1, 2, 4, 0, 2, 2, 3, 1},
       {1, {}, {0, 1}, {0, 1}}},
      // One index per window with the index vector dimension implicit.
      {"implicitVector", {6, 2}, {3}, {3, 2}, {5, 1, 2}, {1, {1}, {0}, {0}}},
      // 2x3 windows at (row, col) starts; the (1, 4) window would run off the end.
      {"windows", {4, 6}, {3, 2}, {3, 2, 3}, {0, 0, 1, 4, 2, 3}, {1, {1, 2}, {}, {0, 1}}},
      // Index vectors along dimension 0 of indices ([2][n]), columns of a [3][4] matrix.
      {"vectorDimFirst", {3, 4}, {1, 2}, {3, 2}, {3, 0}, {0, {0}, {1}, {1}}},
  };
}

std::vector<double> asDoubles(const std::vector<std::int64_t> &v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Runs one case; `combineAdd` selects the update-computation form with an addition.
std::vector<double> runCase(const Case &c, const poplar::Type &type, Layout layout, bool combineAdd,
                            const std::vector<double> &operand, const std::vector<double> &updates,
                            unsigned threads = 1) {
  Harness h(layout);
  auto op = h.input(type, c.operandShape, operand, "operand");
  auto idx = h.input(poplar::INT, c.indicesShape, asDoubles(c.indices), "indices");
  auto upd = h.input(type, c.updatesShape, updates, "updates");
  if (combineAdd) {
    popops::UpdateComputationFunc add = [](poplar::Graph &g, poplar::Tensor &a, poplar::Tensor &b,
                                           poplar::program::Sequence &p) {
      return popops::add(g, a, b, p);
    };
    popops::scatter(h.graph(), op, idx, upd, c.dims.indexVectorDim, c.dims.updateWindowDims,
                    c.dims.insertWindowDims, c.dims.scatterDimsToOperandDims, add, h.prog());
  } else {
    popops::scatter(h.graph(), op, idx, upd, c.dims.indexVectorDim, c.dims.updateWindowDims,
                    c.dims.insertWindowDims, c.dims.scatterDimsToOperandDims, h.prog());
  }
  h.output("operand", op);
  return h.run(threads)["operand"];
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

TEST(Scatter, WritesEachWindowAndSkipsOutOfRangeOnes) {
  for (const auto &c : cases())
    for (auto type : {poplar::FLOAT, poplar::HALF, poplar::INT})
      for (auto layout : kLayouts) {
        const auto operand = reference::roundTo(
            type, reference::randomValues(reference::numElements(c.operandShape), 1, -50, 50));
        auto updates = reference::roundTo(
            type, reference::randomValues(reference::numElements(c.updatesShape), 2, -50, 50));
        if (type == poplar::INT)
          for (auto *v : {&updates})
            for (auto &x : *v)
              x = std::round(x);
        std::vector<double> op = operand;
        if (type == poplar::INT)
          for (auto &x : op)
            x = std::round(x);
        const auto want = reference::scatter(op, c.operandShape, c.indices, c.indicesShape, updates,
                                             c.updatesShape, c.dims);
        EXPECT_EQ(runCase(c, type, layout, false, op, updates), want)
            << c.name << " " << type.toString() << " " << layoutName(layout);
      }
}

TEST(Scatter, UpdateComputationAccumulatesDuplicateIndices) {
  for (const auto &c : cases())
    for (auto type : {poplar::FLOAT, poplar::INT})
      for (auto layout : kLayouts) {
        std::vector<double> op(reference::numElements(c.operandShape)),
            updates(reference::numElements(c.updatesShape));
        for (std::size_t i = 0; i < op.size(); ++i)
          op[i] = double(i % 7) - 3;
        for (std::size_t i = 0; i < updates.size(); ++i)
          updates[i] = double(i % 5) + 1;
        const auto want =
            reference::scatter(op, c.operandShape, c.indices, c.indicesShape, updates,
                               c.updatesShape, c.dims, [](double a, double b) { return a + b; });
        EXPECT_EQ(runCase(c, type, layout, true, op, updates), want)
            << c.name << " " << type.toString() << " " << layoutName(layout);
      }
}

TEST(Scatter, ResultsAreIdenticalForOneAndTwoHostThreads) {
  const auto c = cases()[3];
  const auto op = reference::randomValues(24, 3), upd = reference::randomValues(18, 4);
  EXPECT_EQ(runCase(c, poplar::HALF, Layout::MULTI_TILE, false, op, upd, 1),
            runCase(c, poplar::HALF, Layout::MULTI_TILE, false, op, upd, 2));
  EXPECT_EQ(runCase(c, poplar::FLOAT, Layout::MULTI_TILE, true, op, upd, 1),
            runCase(c, poplar::FLOAT, Layout::MULTI_TILE, true, op, upd, 2));
}

TEST(ScatterErrors, ArgumentsThatDoNotFitAreNamed) {
  Harness h;
  auto op = h.input(poplar::FLOAT, {5, 3}, std::vector<double>(15), "operand");
  auto idx = h.input(poplar::INT, {4, 1}, {0, 1, 2, 3}, "indices");
  auto fIdx = h.input(poplar::FLOAT, {4, 1}, {0, 1, 2, 3}, "fIdx");
  auto upd = h.input(poplar::FLOAT, {4, 3}, std::vector<double>(12), "updates");
  auto hUpd = h.input(poplar::HALF, {4, 3}, std::vector<double>(12), "hUpd");
  auto wide = h.input(poplar::FLOAT, {4, 4}, std::vector<double>(16), "wide");
  auto &g = h.graph();
  auto &p = h.prog();
  expectThrowsNaming([&] { popops::scatter(g, op, idx, hUpd, 1, {1}, {0}, {0}, p); },
                     "updates half[4,3] must have operand's type");
  expectThrowsNaming([&] { popops::scatter(g, op, fIdx, upd, 1, {1}, {0}, {0}, p); },
                     "indices must be INT or UNSIGNED_INT");
  expectThrowsNaming([&] { popops::scatter(g, op, idx, upd, 3, {1}, {0}, {0}, p); },
                     "indexVectorDim 3");
  expectThrowsNaming([&] { popops::scatter(g, op, idx, upd, 1, {2}, {0}, {0}, p); },
                     "updateWindowDims {2}");
  expectThrowsNaming([&] { popops::scatter(g, op, idx, upd, 1, {1}, {}, {0}, p); },
                     "insertWindowDims (0)");
  expectThrowsNaming(
      [&] {
        popops::scatter(g, op, idx, upd, 1, {1}, {0}, {0, 1}, p);
      },
      "scatterDimsToOperandDims has 2 entries");
  expectThrowsNaming([&] { popops::scatter(g, op, idx, wide, 1, {1}, {0}, {0}, p); },
                     "window dimension 1 of updates");
  popops::UpdateComputationFunc wrong = [](poplar::Graph &, poplar::Tensor &a, poplar::Tensor &,
                                           poplar::program::Sequence &) { return a.slice(0, 1); };
  expectThrowsNaming([&] { popops::scatter(g, op, idx, upd, 1, {1}, {0}, {0}, wrong, p); },
                     "updateComputation returned");
}
