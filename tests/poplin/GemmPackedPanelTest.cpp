// The GEMM kernel's packed-panel path (blocks tall enough that every panel of B is copied into
// contiguous scratch first): against the scalar reference, overwriting and accumulating, with
// power-of-two and ragged leading dimensions.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "MatMulTestSupport.hpp"
#include "poplin/kernels/GemmKernels.hpp"

namespace {

using namespace tessera::codelets::poplin;
using poplin::testing::randomValues;

// m, n, k, ldb (≥ n), accumulate.
class GemmPackedPanel : public ::testing::TestWithParam<std::tuple<int, int, int, int, bool>> {};

TEST_P(GemmPackedPanel, MatchesScalarReference) {
  const auto [mi, ni, ki, ldbi, accumulate] = GetParam();
  const std::size_t m = mi, n = ni, k = ki, ldb = ldbi, lda = k + 1, ldc = n + 3;
  const auto a = randomValues(m * lda, 11), b = randomValues(k * ldb, 12);
  const auto c0 = randomValues(m * ldc, 13);
  std::vector<float> c = c0, ref = c0;
  // Scratch filled with garbage: the kernel must not rely on its previous contents.
  std::vector<float> scratch(gemmScratchFloats(k), 1e30f);
  gemmFloatKernel()(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, accumulate,
                    scratch.data());
  gemmFloatReference(m, n, k, a.data(), lda, b.data(), ldb, ref.data(), ldc, accumulate);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < ldc; ++j) {
      const std::size_t at = i * ldc + j;
      if (j >= n) {
        EXPECT_EQ(c[at], c0[at]) << "wrote outside the block at row " << i << " col " << j;
        continue;
      }
      double exact = accumulate ? double(c0[at]) : 0.0;
      for (std::size_t p = 0; p < k; ++p)
        exact += double(a[i * lda + p]) * double(b[p * ldb + j]);
      EXPECT_NEAR(c[at], ref[at], 1e-5 * (1.0 + std::sqrt(double(k)))) << i << "," << j;
      EXPECT_NEAR(c[at], exact, 1e-5 * (1.0 + double(k))) << i << "," << j;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmPackedPanel,
                         ::testing::Values(std::make_tuple(32, 32, 16, 32, false),
                                           std::make_tuple(64, 128, 128, 128, true),
                                           std::make_tuple(40, 100, 33, 128, false),
                                           std::make_tuple(129, 96, 70, 256, true),
                                           std::make_tuple(205, 128, 171, 1024, true),
                                           std::make_tuple(48, 65, 1, 65, false)));

TEST(GemmPackedPanel, EqualsTheInPlaceRowsItIsMadeOf) {
  // Rows computed in one tall call (packed panels) equal the same rows computed a few at a time
  // (panels read in place): the packing never changes a value.
  const std::size_t m = 64, n = 96, k = 50;
  const auto a = randomValues(m * k, 21), b = randomValues(k * n, 22);
  std::vector<float> tall(m * n), rows(m * n), scratch(gemmScratchFloats(k));
  gemmFloatKernel()(m, n, k, a.data(), k, b.data(), n, tall.data(), n, false, scratch.data());
  for (std::size_t i = 0; i < m; i += 4)
    gemmFloatKernel()(4, n, k, a.data() + i * k, k, b.data(), n, rows.data() + i * n, n, false,
                      scratch.data());
  EXPECT_EQ(tall, rows);
}

} // namespace
