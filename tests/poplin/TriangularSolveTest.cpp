// poplin::triangularSolve and triangularMask against reference/TriangularSolve.hpp: residuals
// ‖A·X − B‖/‖B‖ (or ‖X·A − B‖/‖B‖) for every side, triangle and diagonal kind, batches, HALF,
// tile mappings, host threads and errors.
#include <gtest/gtest.h>

#include <tuple>

#include <poplar/exceptions.hpp>
#include <poplin/TriangularSolve.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/MatMul.hpp>
#include <reference/TriangularSolve.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;

namespace {

struct SolveCase {
  std::size_t n = 40, k = 7, batch = 1;
  bool leftSide = true, lower = true, unitDiagonal = false;
  poplar::Type type = FLOAT;
  Mapping mapping = Mapping::Linear;
  std::size_t blockSize = 16;
  unsigned hostThreads = 0;
};

/// A well-conditioned triangular system stored in a full matrix: the used triangle has
/// off-diagonal entries of size ~1/n and a diagonal in [1, 2); the unused triangle (and, with a
/// unit diagonal, the diagonal) holds large values the solver must not read.
std::vector<double> systemMatrix(std::size_t n, bool lower, bool unit, unsigned seed) {
  auto a = reference::randomValues(n * n, seed);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double &x = a[i * n + j];
      if (i == j)
        x = unit ? 1e3 : 1.5 + 0.5 * x;
      else if (lower ? j < i : j > i)
        x /= double(n);
      else
        x *= 1e3;
    }
  return a;
}

struct SolveRun {
  std::vector<double> a, b, x;
};

SolveRun runSolve(const SolveCase &c) {
  LinalgHarness h;
  std::vector<double> a, b;
  for (std::size_t i = 0; i < c.batch; ++i) {
    const auto m = systemMatrix(c.n, c.lower, c.unitDiagonal, 200 + unsigned(i));
    a.insert(a.end(), m.begin(), m.end());
  }
  b = reference::randomValues(c.batch * c.n * c.k, 300);
  a = reference::roundTo(c.type, a);
  b = reference::roundTo(c.type, b);
  std::vector<std::size_t> aShape{c.n, c.n};
  std::vector<std::size_t> bShape =
      c.leftSide ? std::vector<std::size_t>{c.n, c.k} : std::vector<std::size_t>{c.k, c.n};
  if (c.batch > 1) {
    aShape.insert(aShape.begin(), c.batch);
    bShape.insert(bShape.begin(), c.batch);
  }
  auto A = h.input("a", c.type, aShape, a, c.mapping);
  auto B = h.input("b", c.type, bShape, b, c.mapping);
  h.output("x",
           poplin::triangularSolve(h.graph(), A, B, c.leftSide, c.lower, c.unitDiagonal, h.prog(),
                                   "solve", {{"blockSize", std::to_string(c.blockSize)}}));
  return {a, b, h.run(c.hostThreads)["x"]};
}

/// ‖A·X − B‖/‖B‖ (left side) or ‖X·A − B‖/‖B‖ of system `i`, A being the masked triangle.
double residual(const SolveRun &r, const SolveCase &c, std::size_t i) {
  const std::size_t n = c.n, k = c.k;
  const auto a = reference::triangularMask(matrixOf(r.a, i, n, n), n, c.lower, c.unitDiagonal);
  const auto b = matrixOf(r.b, i, c.leftSide ? n : k, c.leftSide ? k : n);
  const auto x = matrixOf(r.x, i, c.leftSide ? n : k, c.leftSide ? k : n);
  const auto ax = c.leftSide ? reference::matMul(a, x, n, k, n) : reference::matMul(x, a, k, n, n);
  return reference::relativeError(ax, b);
}

class TriangularSolveVariants : public ::testing::TestWithParam<std::tuple<bool, bool, bool>> {};

TEST_P(TriangularSolveVariants, ResidualIsSmallAndMatchesTheReference) {
  SolveCase c;
  std::tie(c.leftSide, c.lower, c.unitDiagonal) = GetParam();
  c.n = 45; // three blocks of 16, the last one short
  const auto r = runSolve(c);
  EXPECT_LT(residual(r, c, 0), 1e-5);
  const auto want =
      reference::triangularSolve(r.a, r.b, c.n, c.k, c.leftSide, c.lower, c.unitDiagonal);
  EXPECT_LT(reference::relativeError(r.x, want), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(TriangularSolve, TriangularSolveVariants,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param) ? "Left" : "Right") +
                                  (std::get<1>(info.param) ? "Lower" : "Upper") +
                                  (std::get<2>(info.param) ? "UnitDiagonal" : "");
                         });

TEST(TriangularSolve, BatchSolvesEverySystem) {
  SolveCase c;
  c.n = 20;
  c.k = 5;
  c.batch = 3;
  c.blockSize = 8;
  for (bool leftSide : {true, false}) {
    c.leftSide = leftSide;
    c.lower = !leftSide;
    const auto r = runSolve(c);
    for (std::size_t i = 0; i < c.batch; ++i)
      EXPECT_LT(residual(r, c, i), 1e-5) << "system " << i << " leftSide " << leftSide;
  }
}

TEST(TriangularSolve, LargeSystemResidualIsSmall) {
  SolveCase c;
  c.n = 512;
  c.k = 16;
  c.blockSize = 64;
  const auto r = runSolve(c);
  EXPECT_LT(residual(r, c, 0), 1e-5);
}

TEST(TriangularSolve, OneTileAndSpreadInputsGiveTheSameSolution) {
  SolveCase c;
  c.mapping = Mapping::OneTile;
  const auto oneTile = runSolve(c);
  c.mapping = Mapping::Linear;
  const auto spread = runSolve(c);
  EXPECT_EQ(oneTile.x, spread.x);
  EXPECT_LT(residual(oneTile, c, 0), 1e-5);
}

TEST(TriangularSolve, HalfSolutionIsCloseToTheReference) {
  SolveCase c;
  c.n = 16;
  c.k = 4;
  c.type = HALF;
  c.blockSize = 4;
  const auto r = runSolve(c);
  EXPECT_LT(residual(r, c, 0), 5e-3);
}

TEST(TriangularSolve, OneAndTwoHostThreadsGiveIdenticalBits) {
  SolveCase c;
  c.hostThreads = 1;
  const auto one = runSolve(c);
  c.hostThreads = 2;
  const auto two = runSolve(c);
  EXPECT_EQ(one.x, two.x);
}

TEST(TriangularSolve, DeprecatedBlockSizeArgumentGivesTheSameSolution) {
  LinalgHarness h;
  const std::size_t n = 12, k = 3;
  const auto a = systemMatrix(n, true, false, 7);
  const auto b = reference::randomValues(n * k, 8);
  auto A = h.input("a", FLOAT, {n, n}, a);
  auto B = h.input("b", FLOAT, {n, k}, b);
  h.output("x1", poplin::triangularSolve(h.graph(), A, B, true, true, false, 4, h.prog()));
  h.output("x2", poplin::triangularSolve(h.graph(), A, B, true, true, false, h.prog(), "s",
                                         {{"blockSize", "4"}}));
  auto out = h.run();
  EXPECT_EQ(out["x1"], out["x2"]);
}

TEST(TriangularMask, ZeroesTheUnusedTriangle) {
  for (bool lower : {true, false})
    for (bool unit : {true, false}) {
      LinalgHarness h;
      const std::size_t n = 9;
      const auto a = reference::randomValues(2 * n * n, 9);
      auto A = h.input("a", FLOAT, {2, n, n}, reference::roundTo(FLOAT, a), Mapping::OneTile);
      h.output("m", poplin::triangularMask(h.graph(), A, lower, unit, h.prog()));
      const auto got = h.run()["m"];
      for (std::size_t i = 0; i < 2; ++i)
        EXPECT_EQ(matrixOf(got, i, n, n),
                  reference::triangularMask(matrixOf(reference::roundTo(FLOAT, a), i, n, n), n,
                                            lower, unit))
            << "lower " << lower << " unit " << unit;
    }
}

TEST(TriangularSolve, CreateInputsHaveTheRequestedShapes) {
  LinalgHarness h;
  auto a = poplin::createTriangularSolveInputLHS(h.graph(), FLOAT, FLOAT, {2, 8, 8}, {2, 3, 8},
                                                 false, "a");
  auto b = poplin::createTriangularSolveInputRHS(h.graph(), FLOAT, FLOAT, {2, 8, 8}, {2, 3, 8},
                                                 false, "b");
  EXPECT_EQ(a.shape(), (std::vector<std::size_t>{2, 8, 8}));
  EXPECT_EQ(b.shape(), (std::vector<std::size_t>{2, 3, 8}));
  const auto params = poplin::getTriangularSolveMatMulPrePlanParameters(
      FLOAT, FLOAT, {8, 8}, {8, 3}, true, true, {{"blockSize", "4"}});
  // Two diagonal solves of 4×4 by 4×3 (one shape) and one update 4×4 · 4×3: the same shape.
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].first.aShape, (std::vector<std::size_t>{1, 4, 4}));
}

/// Runs `f` and checks it throws poplibs_error whose message contains `culprit`.
template <class F> void expectError(F f, const std::string &culprit) {
  try {
    f();
    FAIL() << "expected poplibs_error naming " << culprit;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

TEST(TriangularSolve, BadShapesThrowNamingTheTensor) {
  LinalgHarness h;
  auto &g = h.graph();
  auto var = [&](std::vector<std::size_t> shape, poplar::Type t = FLOAT) {
    auto v = g.addVariable(t, shape, "v");
    g.setTileMapping(v, 0);
    return v;
  };
  auto &p = h.prog();
  expectError(
      [&] {
        poplin::triangularSolve(g, var({4, 5}), var({4, 2}), true, true, false, p);
      },
      "a (the triangular matrix)");
  expectError(
      [&] {
        poplin::triangularSolve(g, var({4, 4}), var({5, 2}), true, true, false, p);
      },
      "b (the right-hand side)");
  expectError(
      [&] {
        poplin::triangularSolve(g, var({4, 4}), var({2, 5}), false, true, false, p);
      },
      "b (the right-hand side)");
  expectError(
      [&] {
        poplin::triangularSolve(g, var({2, 4, 4}), var({3, 4, 2}), true, true, false, p);
      },
      "batch dimensions");
  expectError(
      [&] {
        poplin::triangularSolve(g, var({2, 4, 4}), var({4, 2}), true, true, false, p);
      },
      "same rank");
  expectError(
      [&] {
        poplin::triangularSolve(g, var({4, 4}), var({4, 2}, HALF), true, true, false, p);
      },
      "b (the right-hand side) has type");
  expectError(
      [&] {
        poplin::triangularMask(g, var({3, 4}), true, false, p);
      },
      "a (the matrix to mask)");
  expectError(
      [&] {
        poplin::triangularSolve(g, var({4, 4}), var({4, 2}), true, true, false, 0, p);
      },
      "blockSize");
  EXPECT_THROW(poplin::triangularSolve(g, var({4, 4}), var({4, 2}), true, true, false, p, "s",
                                       {{"blokSize", "2"}}),
               poplar::invalid_option);
}

} // namespace

namespace {

TEST(TriangularSolve, EmptyRightHandSideGivesAnEmptySolution) {
  LinalgHarness h;
  auto a = h.input("a", FLOAT, {4, 4}, reference::randomValues(16, 1));
  auto b = h.graph().addVariable(FLOAT, {4, 0}, "b");
  auto x = poplin::triangularSolve(h.graph(), a, b, true, true, false, h.prog());
  EXPECT_EQ(x.shape(), (std::vector<std::size_t>{4, 0}));
  auto e = h.graph().addVariable(FLOAT, {0, 0}, "e");
  auto f = h.graph().addVariable(FLOAT, {0, 3}, "f");
  EXPECT_EQ(poplin::triangularSolve(h.graph(), e, f, true, false, true, h.prog()).shape(),
            (std::vector<std::size_t>{0, 3}));
  EXPECT_NO_THROW(h.run());
}

} // namespace
