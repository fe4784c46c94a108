// popnn's fused row-sums kernel (Σx with Σx·y or Σx²): bit-identical to its scalar reference for
// lengths around the 16 interleaved accumulators, with and without y, chained onto earlier
// sums; and the reference itself within float rounding of a double sum.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "popnn/kernels/RowSumsKernels.hpp"

using tessera::codelets::popnn::rowSumsKernel;
using tessera::codelets::popnn::rowSumsReference;

namespace {

TEST(RowSumsKernel, BitIdenticalToReferenceForEveryLength) {
  std::mt19937 gen(8);
  std::uniform_real_distribution<float> dist(-3, 3);
  for (std::size_t n : {0, 1, 3, 4, 15, 16, 17, 31, 32, 33, 100, 1000, 4099}) {
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = dist(gen), y[i] = dist(gen);
    for (bool withY : {false, true}) {
      const float *yp = withY ? y.data() : nullptr;
      float got[2] = {0.5f, -1.25f}, want[2] = {0.5f, -1.25f};
      rowSumsKernel()(x.data(), yp, n, got);
      rowSumsReference(x.data(), yp, n, want);
      EXPECT_EQ(got[0], want[0]) << "sum, n " << n << (withY ? " with y" : "");
      EXPECT_EQ(got[1], want[1]) << "product sum, n " << n << (withY ? " with y" : "");
    }
  }
}

TEST(RowSumsKernel, ReferenceMatchesDoubleSums) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> dist(-3, 3);
  const std::size_t n = 777;
  std::vector<float> x(n), y(n);
  double sx = 0, sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = dist(gen), y[i] = dist(gen);
    sx += x[i];
    sxy += double(x[i]) * y[i];
    sxx += double(x[i]) * x[i];
  }
  float withY[2] = {0, 0}, squares[2] = {0, 0};
  rowSumsReference(x.data(), y.data(), n, withY);
  rowSumsReference(x.data(), nullptr, n, squares);
  EXPECT_NEAR(withY[0], sx, 1e-3);
  EXPECT_NEAR(withY[1], sxy, 1e-3);
  EXPECT_NEAR(squares[0], sx, 1e-3);
  EXPECT_NEAR(squares[1], sxx, 1e-3 * sxx);
}

} // namespace
