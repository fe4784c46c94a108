// poplin::experimental::QRFactorization against reference/QRFactorization.hpp: residuals
// ‖A − Q·R‖/‖A‖ and ‖QᵀQ − I‖/‖I‖, R's zeros, created and user layouts, host threads and errors.
#include <gtest/gtest.h>

#include <poplar/exceptions.hpp>
#include <poplin/experimental/QRFactorization.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Cholesky.hpp>
#include <reference/MatMul.hpp>
#include <reference/QRFactorization.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;

namespace {

enum class Layout { Created, UserLinear, UserOneTile };

struct QrRun {
  std::vector<double> a, q, r;
};

QrRun runQr(std::size_t m, std::size_t n, Layout layout = Layout::Created,
            unsigned hostThreads = 0) {
  LinalgHarness h;
  QrRun run;
  run.a = reference::roundTo(poplar::FLOAT, reference::randomValues(m * n, 900));
  std::vector<double> identity(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    identity[i * m + i] = 1.0;
  poplar::Tensor A, Q;
  if (layout == Layout::Created) {
    auto created =
        poplin::experimental::createQRFactorizationMatrices(h.graph(), poplar::FLOAT, m, n, "qr");
    A = h.write("a", created[0], run.a);
    Q = h.write("q", created[1], identity);
  } else {
    const Mapping mapping = layout == Layout::UserOneTile ? Mapping::OneTile : Mapping::Linear;
    A = h.input("a", poplar::FLOAT, {m, n}, run.a, mapping);
    Q = h.input("q", poplar::FLOAT, {m, m}, identity, mapping);
  }
  poplin::experimental::QRFactorization(h.graph(), A, Q, h.prog(), "qr",
                                        {{"rowsPerIteration", "16"}});
  h.output("r", A);
  h.output("qOut", Q);
  auto out = h.run(hostThreads);
  run.r = out["r"];
  run.q = out["qOut"];
  return run;
}

/// {‖A − Q·R‖/‖A‖, ‖QᵀQ − I‖/‖I‖} after checking R is zero below the diagonal.
std::pair<double, double> residuals(const QrRun &run, std::size_t m, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < std::min(i, n); ++j)
      EXPECT_EQ(run.r[i * n + j], 0.0) << "R below the diagonal at " << i << "," << j;
  const double factor = reference::relativeError(reference::matMul(run.q, run.r, m, n, m), run.a);
  std::vector<double> identity(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    identity[i * m + i] = 1.0;
  const auto qtq = reference::matMul(reference::transpose(run.q, m, m), run.q, m, m, m);
  return {factor, reference::relativeError(qtq, identity)};
}

TEST(QRFactorization, TallMatrixFactorsAreOrthogonalAndTriangular) {
  const std::size_t m = 60, n = 35;
  const auto run = runQr(m, n);
  const auto [factor, orthogonality] = residuals(run, m, n);
  EXPECT_LT(factor, 1e-5);
  EXPECT_LT(orthogonality, 1e-5);
  const auto [q, r] = reference::qrFactorization(run.a, m, n);
  EXPECT_LT(reference::relativeError(run.r, r), 1e-5);
  EXPECT_LT(reference::relativeError(run.q, q), 1e-5);
}

TEST(QRFactorization, UserLayoutsGiveTheSameFactors) {
  const std::size_t m = 40, n = 40;
  const auto created = runQr(m, n);
  const auto spread = runQr(m, n, Layout::UserLinear);
  const auto oneTile = runQr(m, n, Layout::UserOneTile);
  EXPECT_EQ(created.r, spread.r);
  EXPECT_EQ(created.q, spread.q);
  EXPECT_EQ(created.r, oneTile.r);
  EXPECT_EQ(created.q, oneTile.q);
  const auto [factor, orthogonality] = residuals(oneTile, m, n);
  EXPECT_LT(factor, 1e-5);
  EXPECT_LT(orthogonality, 1e-5);
}

TEST(QRFactorization, LargeMatrixResidualsAreSmall) {
  const auto run = runQr(512, 512);
  const auto [factor, orthogonality] = residuals(run, 512, 512);
  EXPECT_LT(factor, 1e-5);
  EXPECT_LT(orthogonality, 1e-5);
}

TEST(QRFactorization, OneAndTwoHostThreadsGiveIdenticalBits) {
  const auto one = runQr(30, 20, Layout::UserLinear, 1);
  const auto two = runQr(30, 20, Layout::UserLinear, 2);
  EXPECT_EQ(one.r, two.r);
  EXPECT_EQ(one.q, two.q);
}

TEST(QRFactorization, BadShapesTypesAndOptionsThrow) {
  LinalgHarness h;
  auto &g = h.graph();
  auto var = [&](std::vector<std::size_t> shape, poplar::Type t = poplar::FLOAT) {
    auto v = g.addVariable(t, shape, "v");
    g.setTileMapping(v, 0);
    return v;
  };
  auto expectError = [&](std::vector<std::size_t> a, std::vector<std::size_t> q, poplar::Type t,
                         const std::string &culprit) {
    auto A = var(a, t), Q = var(q);
    try {
      poplin::experimental::QRFactorization(g, A, Q, h.prog());
      FAIL() << "expected poplibs_error naming " << culprit;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
    }
  };
  expectError({3, 5}, {3, 3}, poplar::FLOAT, "at least as many rows as columns");
  expectError({5, 3}, {5, 4}, poplar::FLOAT, "Q must be square");
  expectError({5, 3}, {4, 4}, poplar::FLOAT, "Q must be square");
  expectError({2, 5, 3}, {5, 5}, poplar::FLOAT, "A must be a matrix");
  expectError({5, 3}, {5, 5}, poplar::HALF, "A has type half");
  EXPECT_THROW(poplin::experimental::createQRFactorizationMatrices(g, poplar::FLOAT, 3, 4, "x"),
               poputil::poplibs_error);
  EXPECT_THROW(poplin::experimental::createQRFactorizationMatrices(g, poplar::HALF, 4, 3, "x"),
               poputil::poplibs_error);
  auto A = var({4, 3}), Q = var({4, 4});
  EXPECT_THROW(
      poplin::experimental::QRFactorization(g, A, Q, h.prog(), "qr", {{"rowsPerIteration", "0"}}),
      poplar::invalid_option);
}

} // namespace
