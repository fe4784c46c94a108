// poplin::experimental::LUFactorization against reference/LuFactorization.hpp: residual
// ‖A − L·U‖/‖A‖, the triangles of L and U, rectangular shapes, HALF input, tile mappings, host
// threads and errors.
#include <gtest/gtest.h>

#include <poplin/experimental/LuFactorization.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/LuFactorization.hpp>
#include <reference/MatMul.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;

namespace {

struct LuRun {
  std::vector<double> a, l, u;
};

LuRun runLu(std::size_t m, std::size_t n, poplar::Type type = poplar::FLOAT,
            Mapping mapping = Mapping::Linear, unsigned hostThreads = 0, unsigned tiles = 16) {
  LinalgHarness h(tiles);
  LuRun r;
  r.a = reference::roundTo(type, reference::diagonallyDominant(m, n, 500));
  auto A = h.input("a", type, {m, n}, r.a, mapping);
  auto [L, U] = poplin::experimental::LUFactorization(h.graph(), A, h.prog(), "lu");
  EXPECT_EQ(L.shape(), (std::vector<std::size_t>{m, m}));
  EXPECT_EQ(U.shape(), (std::vector<std::size_t>{m, n}));
  EXPECT_EQ(L.elementType(), poplar::FLOAT);
  EXPECT_EQ(U.elementType(), poplar::FLOAT);
  h.output("l", L);
  h.output("u", U);
  auto out = h.run(hostThreads);
  r.l = out["l"];
  r.u = out["u"];
  return r;
}

/// ‖A − L·U‖/‖A‖ after checking the shapes of the triangles.
double residual(const LuRun &r, std::size_t m, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) {
    EXPECT_EQ(r.l[i * m + i], 1.0) << "L diagonal " << i;
    for (std::size_t j = i + 1; j < m; ++j)
      EXPECT_EQ(r.l[i * m + j], 0.0) << "L above the diagonal at " << i << "," << j;
    for (std::size_t j = 0; j < std::min(i, n); ++j)
      EXPECT_EQ(r.u[i * n + j], 0.0) << "U below the diagonal at " << i << "," << j;
  }
  return reference::relativeError(reference::matMul(r.l, r.u, m, n, m), r.a);
}

TEST(LuFactorization, SquareFactorsReconstructTheInput) {
  const auto r = runLu(70, 70);
  EXPECT_LT(residual(r, 70, 70), 1e-5);
  const auto [l, u] = reference::luFactorization(r.a, 70, 70);
  EXPECT_LT(reference::relativeError(r.l, l), 1e-5);
  EXPECT_LT(reference::relativeError(r.u, u), 1e-5);
}

TEST(LuFactorization, TallAndWideFactorsReconstructTheInput) {
  EXPECT_LT(residual(runLu(45, 20), 45, 20), 1e-5);
  EXPECT_LT(residual(runLu(20, 45), 20, 45), 1e-5);
}

TEST(LuFactorization, LargeMatrixResidualIsSmall) {
  // L and U of 512×512 FLOAT need 2 MiB: 64 tiles hold them with the products' partials.
  EXPECT_LT(residual(runLu(512, 512, poplar::FLOAT, Mapping::Linear, 0, 64), 512, 512), 1e-5);
}

TEST(LuFactorization, HalfInputIsFactorisedInFloat) {
  const auto r = runLu(24, 24, poplar::HALF);
  EXPECT_LT(residual(r, 24, 24), 1e-5); // the rounded input, factorised in FLOAT
}

TEST(LuFactorization, OneTileInputGivesTheSameFactors) {
  const auto spread = runLu(40, 40);
  const auto oneTile = runLu(40, 40, poplar::FLOAT, Mapping::OneTile);
  EXPECT_EQ(spread.l, oneTile.l);
  EXPECT_EQ(spread.u, oneTile.u);
}

TEST(LuFactorization, OneAndTwoHostThreadsGiveIdenticalBits) {
  const auto one = runLu(40, 40, poplar::FLOAT, Mapping::Linear, 1);
  const auto two = runLu(40, 40, poplar::FLOAT, Mapping::Linear, 2);
  EXPECT_EQ(one.l, two.l);
  EXPECT_EQ(one.u, two.u);
}

TEST(LuFactorization, NonMatrixOrIntegerInputThrowsNamingIt) {
  LinalgHarness h;
  auto v = h.graph().addVariable(poplar::FLOAT, {2, 3, 3}, "v");
  try {
    poplin::experimental::LUFactorization(h.graph(), v, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("input must be a matrix"), std::string::npos) << e.what();
  }
  auto i = h.graph().addVariable(poplar::INT, {3, 3}, "i");
  EXPECT_THROW(poplin::experimental::LUFactorization(h.graph(), i, h.prog()),
               poputil::poplibs_error);
}

} // namespace
