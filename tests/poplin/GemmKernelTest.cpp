// The Highway GEMM kernel against its scalar reference and a double-precision product.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "MatMulTestSupport.hpp"
#include "poplin/kernels/GemmKernels.hpp"

namespace {

using namespace tessera::codelets::poplin;
using poplin::testing::randomValues;

class GemmKernel : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(GemmKernel, MatchesScalarReferenceWithStrides) {
  const auto [mi, ni, ki] = GetParam();
  const std::size_t m = mi, n = ni, k = ki;
  const std::size_t lda = k + 3, ldb = n + 5, ldc = n + 2; // strided views inside larger buffers
  const auto a = randomValues(m * lda, 1), b = randomValues(k * ldb, 2);
  std::vector<float> c(m * ldc, 7.0f), ref(m * ldc, 7.0f), scratch(gemmScratchFloats(k));
  gemmFloatKernel()(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, false, scratch.data());
  gemmFloatReference(m, n, k, a.data(), lda, b.data(), ldb, ref.data(), ldc, false);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < ldc; ++j) {
      const std::size_t at = i * ldc + j;
      if (j >= n) {
        EXPECT_EQ(c[at], 7.0f) << "wrote outside the block at row " << i << " col " << j;
        continue;
      }
      double exact = 0.0;
      for (std::size_t p = 0; p < k; ++p)
        exact += double(a[i * lda + p]) * double(b[p * ldb + j]);
      // Both are fp32 FMA chains in the same order; on FMA targets they agree exactly.
      EXPECT_NEAR(c[at], ref[at], 1e-5 * (1.0 + std::sqrt(double(k)))) << i << "," << j;
      EXPECT_NEAR(c[at], exact, 1e-5 * (1.0 + double(k))) << i << "," << j;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmKernel,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(1, 65, 3),
                                           std::make_tuple(17, 1, 127), std::make_tuple(3, 17, 65),
                                           std::make_tuple(8, 32, 16), std::make_tuple(9, 33, 7),
                                           std::make_tuple(65, 127, 17),
                                           std::make_tuple(6, 64, 0)));

TEST(GemmKernel, ZeroInnerDimensionGivesZeros) {
  std::vector<float> c(12, 5.0f), scratch(1);
  gemmFloatKernel()(3, 4, 0, nullptr, 0, nullptr, 4, c.data(), 4, false, scratch.data());
  for (float x : c)
    EXPECT_EQ(x, 0.0f);
}

TEST(GemmKernel, AccumulatingStepsEqualOneCall) {
  // k split into consecutive accumulating calls continues the same FMA chain.
  const std::size_t m = 11, n = 45, k = 70, split = 23;
  const auto a = randomValues(m * k, 3), b = randomValues(k * n, 4);
  std::vector<float> whole(m * n), steps(m * n, 0.0f), ref(m * n, 0.5f), refWant(m * n, 0.5f);
  std::vector<float> scratch(gemmScratchFloats(k));
  const auto kernel = gemmFloatKernel();
  kernel(m, n, k, a.data(), k, b.data(), n, whole.data(), n, false, scratch.data());
  kernel(m, n, split, a.data(), k, b.data(), n, steps.data(), n, false, scratch.data());
  kernel(m, n, k - split, a.data() + split, k, b.data() + split * n, n, steps.data(), n, true,
         scratch.data());
  EXPECT_EQ(whole, steps);
  // The reference's accumulate starts from C.
  gemmFloatReference(m, n, k, a.data(), k, b.data(), n, ref.data(), n, true);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double exact = 0.5;
      for (std::size_t p = 0; p < k; ++p)
        exact += double(a[i * k + p]) * double(b[p * n + j]);
      EXPECT_NEAR(ref[i * n + j], exact, 1e-4) << i << "," << j;
    }
}

class GemmRowsPacked : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(GemmRowsPacked, EqualsTheStridedKernelBitForBit) {
  // Rows of A scattered through a buffer, B packed into 32-column panels (zero past n): every
  // element must be the strided kernel's FMA chain exactly, with or without accumulation.
  const auto [mi, ni, ki] = GetParam();
  const std::size_t m = mi, n = ni, k = ki, ldc = n + 3;
  const auto a = randomValues(m * (k + 5), 5), b = randomValues(k * n, 6);
  std::vector<const float *> aRows(m);
  for (std::size_t i = 0; i < m; ++i)
    aRows[(i * 7) % m] = a.data() + i * (k + 5); // not in address order
  std::vector<float> aDense(m * k);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p)
      aDense[i * k + p] = aRows[i][p];
  const std::size_t panels = (n + kGemmColumnUnit - 1) / kGemmColumnUnit;
  std::vector<float> packed(panels * k * kGemmColumnUnit, 0.0f);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j)
      packed[(j / kGemmColumnUnit) * k * kGemmColumnUnit + p * kGemmColumnUnit +
             j % kGemmColumnUnit] = b[p * n + j];
  std::vector<float> scratch(gemmScratchFloats(k));
  for (bool accumulate : {false, true}) {
    std::vector<float> c(m * ldc, 0.25f), want(m * ldc, 0.25f);
    gemmRowsPackedKernel()(m, n, k, aRows.data(), packed.data(), c.data(), ldc, accumulate);
    gemmFloatKernel()(m, n, k, aDense.data(), k, b.data(), n, want.data(), ldc, accumulate,
                      scratch.data());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < ldc; ++j) {
        if (j >= n) {
          EXPECT_EQ(c[i * ldc + j], 0.25f) << "wrote outside the block at row " << i;
          continue;
        }
        double exact = accumulate ? 0.25 : 0.0;
        for (std::size_t p = 0; p < k; ++p)
          exact += double(aRows[i][p]) * double(b[p * n + j]);
        EXPECT_EQ(c[i * ldc + j], want[i * ldc + j])
            << i << "," << j << " accumulate " << accumulate;
        EXPECT_NEAR(c[i * ldc + j], exact, 1e-5 * (1.0 + double(k))) << i << "," << j;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmRowsPacked,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(8, 32, 16),
                                           std::make_tuple(9, 33, 7), std::make_tuple(17, 70, 40),
                                           std::make_tuple(64, 64, 129),
                                           std::make_tuple(5, 100, 3)));

class GemmTransposedA : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(GemmTransposedA, EqualsTheStridedKernelBitForBit) {
  // A stored [k][m] with a row stride past m: the same FMA chains as the row-major kernel.
  const auto [mi, ni, ki] = GetParam();
  const std::size_t m = mi, n = ni, k = ki, lda = m + 3, ldc = n + 2;
  const auto aT = randomValues(k * lda, 7), b = randomValues(k * n, 8);
  std::vector<float> aDense(m * k);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p)
      aDense[i * k + p] = aT[p * lda + i];
  std::vector<float> scratch(gemmScratchFloats(k));
  for (bool accumulate : {false, true}) {
    std::vector<float> c(m * ldc, 0.5f), want(m * ldc, 0.5f);
    gemmTransposedAKernel()(m, n, k, aT.data(), lda, b.data(), n, c.data(), ldc, accumulate,
                            scratch.data());
    gemmFloatKernel()(m, n, k, aDense.data(), k, b.data(), n, want.data(), ldc, accumulate,
                      scratch.data());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < ldc; ++j) {
        if (j >= n) {
          EXPECT_EQ(c[i * ldc + j], 0.5f) << "wrote outside the block at row " << i;
          continue;
        }
        double exact = accumulate ? 0.5 : 0.0;
        for (std::size_t p = 0; p < k; ++p)
          exact += double(aDense[i * k + p]) * double(b[p * n + j]);
        EXPECT_EQ(c[i * ldc + j], want[i * ldc + j])
            << i << "," << j << " accumulate " << accumulate;
        EXPECT_NEAR(c[i * ldc + j], exact, 1e-5 * (1.0 + double(k))) << i << "," << j;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmTransposedA,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(8, 32, 16),
                                           std::make_tuple(9, 33, 7), std::make_tuple(40, 70, 17),
                                           std::make_tuple(64, 64, 129)));

} // namespace
