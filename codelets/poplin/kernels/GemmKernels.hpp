// Register-blocked fp32 GEMM micro-kernels for poplin's matrix-multiply vertices.
//
// Contract of every kernel here: C[m×n] = A[m×k] · B[k×n], or C += A · B when `accumulate`
// (row-major, row strides lda, ldb, ldc). Each element of C is one chain of fused multiply-adds
// over k in increasing order, starting from zero (or from C), so its value does not depend on
// the blocking, the SIMD width or how callers split rows and columns between workers — and
// splitting k into consecutive accumulating calls gives the same chain as one call.
#pragma once

#include <cmath>
#include <cstddef>

namespace tessera::codelets::poplin {

/// Columns of B packed together (a multiple of every target's panel width: 8, 16 or 32).
inline constexpr std::size_t kGemmColumnUnit = 32;

/// Floats of packing scratch a GEMM kernel needs for inner dimension k.
inline constexpr std::size_t gemmScratchFloats(std::size_t k) { return k * kGemmColumnUnit; }

/// `scratch` holds gemmScratchFloats(k) floats (one packed, zero-padded panel of B; any alignment).
using GemmFloatFn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float *a,
                             std::size_t lda, const float *b, std::size_t ldb, float *c,
                             std::size_t ldc, bool accumulate, float *scratch);

/// C[m×n] = A[m×k] · B, or C += A · B when `accumulate`, with the same per-element FMA chain as
/// GemmFloatFn. Row i of A is the k floats at aRows[i] (rows anywhere: a convolution's plane
/// rows read in place). B comes packed: columns [32j, 32j + 32) are panel j, k rows of
/// kGemmColumnUnit floats at bPacked + j · k · kGemmColumnUnit, zero past column n.
using GemmRowsPackedFn = void (*)(std::size_t m, std::size_t n, std::size_t k,
                                  const float *const *aRows, const float *bPacked, float *c,
                                  std::size_t ldc, bool accumulate);

/// The best Highway variants for this CPU, resolved once.
GemmFloatFn gemmFloatKernel();
/// GemmFloatFn with A given transposed: element (i, p) of A is a[p · lda + i] (A stored [k][m]).
GemmFloatFn gemmTransposedAKernel();
GemmRowsPackedFn gemmRowsPackedKernel();

/// Scalar reference the tests compare the kernel with (same FMA order).
inline void gemmFloatReference(std::size_t m, std::size_t n, std::size_t k, const float *a,
                               std::size_t lda, const float *b, std::size_t ldb, float *c,
                               std::size_t ldc, bool accumulate) {
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = accumulate ? c[i * ldc + j] : 0.0f;
      for (std::size_t p = 0; p < k; ++p)
        acc = std::fma(a[i * lda + p], b[p * ldb + j], acc);
      c[i * ldc + j] = acc;
    }
}

} // namespace tessera::codelets::poplin
