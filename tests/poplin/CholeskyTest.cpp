// poplin::cholesky / choleskyInPlace against reference/Cholesky.hpp: residual ‖A − L·Lᵀ‖/‖A‖,
// the unused triangle, batches, HALF, tile mappings, host threads and errors.
#include <gtest/gtest.h>

#include <poplar/exceptions.hpp>
#include <poplin/Cholesky.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Cholesky.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;

namespace {

struct CholeskyCase {
  std::size_t n = 24, batch = 1;
  bool lower = true, inPlace = false;
  poplar::Type type = FLOAT;
  Mapping mapping = Mapping::Linear;
  std::size_t blockSize = 0; // 0: the default
  unsigned hostThreads = 0;
};

/// The batch of SPD inputs and the device's factors.
struct CholeskyRun {
  std::vector<double> a, factor;
};

CholeskyRun runCholesky(const CholeskyCase &c) {
  LinalgHarness h;
  std::vector<double> a;
  for (std::size_t i = 0; i < c.batch; ++i) {
    const auto m = reference::randomSpd(c.n, 100 + unsigned(i));
    a.insert(a.end(), m.begin(), m.end());
  }
  a = reference::roundTo(c.type, a);
  std::vector<std::size_t> shape{c.n, c.n};
  if (c.batch > 1)
    shape.insert(shape.begin(), c.batch);
  poplar::Tensor t = h.input("a", c.type, shape, a, c.mapping);
  poplar::OptionFlags opts;
  if (c.blockSize)
    opts.set("blockSize", std::to_string(c.blockSize));
  if (c.inPlace) {
    poplin::choleskyInPlace(h.graph(), t, c.lower, h.prog(), "chol", opts);
    h.output("l", t);
  } else {
    h.output("l", poplin::cholesky(h.graph(), t, c.lower, h.prog(), "chol", opts));
  }
  return {a, h.run(c.hostThreads)["l"]};
}

/// ‖A − L·Lᵀ‖/‖A‖ (lower) or ‖A − Uᵀ·U‖/‖A‖ (upper) of matrix `i`, after checking the unused
/// triangle is zero.
double residual(const CholeskyRun &r, const CholeskyCase &c, std::size_t i) {
  const std::size_t n = c.n;
  const auto a = matrixOf(r.a, i, n, n), f = matrixOf(r.factor, i, n, n);
  for (std::size_t row = 0; row < n; ++row)
    for (std::size_t col = 0; col < n; ++col)
      if (c.lower ? col > row : col < row) {
        EXPECT_EQ(f[row * n + col], 0.0) << "unused triangle at " << row << "," << col;
      }
  const auto ft = reference::transpose(f, n, n);
  const auto product =
      c.lower ? reference::matMul(f, ft, n, n, n) : reference::matMul(ft, f, n, n, n);
  return reference::relativeError(product, a);
}

TEST(Cholesky, LowerFactorReconstructsTheInput) {
  CholeskyCase c;
  c.n = 40;
  const auto r = runCholesky(c);
  EXPECT_LT(residual(r, c, 0), 1e-5);
  // The factor itself matches the reference factor.
  EXPECT_LT(reference::relativeError(r.factor, reference::choleskyLower(r.a, c.n)), 1e-5);
}

TEST(Cholesky, UpperFactorReconstructsTheInput) {
  CholeskyCase c;
  c.n = 37; // not a multiple of the block size
  c.lower = false;
  const auto r = runCholesky(c);
  EXPECT_LT(residual(r, c, 0), 1e-5);
}

TEST(Cholesky, InPlaceOnOneTileMatchesOutOfPlaceSpread) {
  CholeskyCase c;
  c.n = 30;
  c.inPlace = true;
  c.mapping = Mapping::OneTile;
  const auto inPlace = runCholesky(c);
  EXPECT_LT(residual(inPlace, c, 0), 1e-5);
  c.inPlace = false;
  c.mapping = Mapping::Linear;
  const auto spread = runCholesky(c);
  EXPECT_EQ(inPlace.factor, spread.factor);
}

TEST(Cholesky, BatchFactorisesEveryMatrix) {
  for (bool lower : {true, false}) {
    CholeskyCase c;
    c.n = 20;
    c.batch = 3;
    c.lower = lower;
    c.blockSize = 6;
    const auto r = runCholesky(c);
    for (std::size_t i = 0; i < c.batch; ++i)
      EXPECT_LT(residual(r, c, i), 1e-5) << "matrix " << i << " lower " << lower;
  }
}

TEST(Cholesky, LargeMatrixResidualIsSmall) {
  CholeskyCase c;
  c.n = 512;
  c.blockSize = 64;
  const auto r = runCholesky(c);
  EXPECT_LT(residual(r, c, 0), 1e-5);
}

TEST(Cholesky, HalfFactorIsCloseToTheReference) {
  CholeskyCase c;
  c.n = 16;
  c.type = HALF;
  c.blockSize = 4;
  const auto r = runCholesky(c);
  EXPECT_LT(residual(r, c, 0), 5e-3);
}

TEST(Cholesky, OneAndTwoHostThreadsGiveIdenticalBits) {
  CholeskyCase c;
  c.n = 48;
  c.hostThreads = 1;
  const auto one = runCholesky(c);
  c.hostThreads = 2;
  const auto two = runCholesky(c);
  EXPECT_EQ(one.factor, two.factor);
}

TEST(Cholesky, CreateCholeskyInputGivesTheShapeMappedOverTiles) {
  LinalgHarness h;
  auto t =
      poplin::createCholeskyInput(h.graph(), FLOAT, {2, 16, 16}, true, "in", {{"blockSize", "4"}});
  EXPECT_EQ(t.shape(), (std::vector<std::size_t>{2, 16, 16}));
  const auto mapping = h.graph().getTileMapping(t);
  std::size_t tilesUsed = 0;
  for (const auto &tile : mapping)
    tilesUsed += !tile.empty();
  EXPECT_EQ(tilesUsed, 16u);
}

TEST(Cholesky, PrePlanParametersListThePanelAndUpdateProducts) {
  const auto params =
      poplin::getCholeskyMatMulPrePlanParameters(FLOAT, {20, 20}, true, {{"blockSize", "8"}});
  // Blocks at 0 and 8 have rows below: two panel solves and two trailing updates.
  ASSERT_EQ(params.size(), 4u);
  for (const auto &p : params) {
    EXPECT_EQ(p.first.aShape.size(), 3u);
    EXPECT_EQ(p.first.aShape[2], p.first.bShape[1]);
    EXPECT_FALSE(p.second.contains("blockSize"));
  }
}

TEST(Cholesky, NonSquareInputThrowsNamingIt) {
  LinalgHarness h;
  auto a = h.graph().addVariable(FLOAT, {4, 5}, "a");
  h.graph().setTileMapping(a, 0);
  try {
    poplin::cholesky(h.graph(), a, true, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("a (the matrix to factorise)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("[4,5]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(poplin::createCholeskyInput(h.graph(), FLOAT, {3, 4}, true, "x"),
               poputil::poplibs_error);
  auto v = h.graph().addVariable(FLOAT, {4}, "v");
  EXPECT_THROW(poplin::choleskyInPlace(h.graph(), v, true, h.prog()), poputil::poplibs_error);
}

TEST(Cholesky, IntegerInputThrowsNamingTheType) {
  LinalgHarness h;
  auto a = h.graph().addVariable(poplar::INT, {4, 4}, "a");
  h.graph().setTileMapping(a, 0);
  try {
    poplin::cholesky(h.graph(), a, true, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("int"), std::string::npos) << e.what();
  }
}

TEST(Cholesky, BadOptionsThrowInvalidOption) {
  LinalgHarness h;
  auto a = h.graph().addVariable(FLOAT, {4, 4}, "a");
  h.graph().setTileMapping(a, 0);
  EXPECT_THROW(poplin::cholesky(h.graph(), a, true, h.prog(), "c", {{"blockSize", "0"}}),
               poplar::invalid_option);
  EXPECT_THROW(poplin::cholesky(h.graph(), a, true, h.prog(), "c", {{"blockSzie", "4"}}),
               poplar::invalid_option);
}

} // namespace

namespace {

TEST(Cholesky, EmptyMatricesGiveEmptyFactors) {
  LinalgHarness h;
  auto a = h.graph().addVariable(FLOAT, {0, 0}, "a");
  auto batch = h.graph().addVariable(FLOAT, {3, 0, 0}, "batch");
  EXPECT_EQ(poplin::cholesky(h.graph(), a, true, h.prog()).shape(),
            (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(poplin::cholesky(h.graph(), batch, false, h.prog()).shape(),
            (std::vector<std::size_t>{3, 0, 0}));
  EXPECT_NO_THROW(h.run());
}

} // namespace
