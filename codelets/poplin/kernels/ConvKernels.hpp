// Highway kernels for convolutions that read their operand rows in place (no im2col panel).
//
// A stride-1 convolution over a zero-padded input plane reads, for kernel element p, the plane
// shifted by a fixed offset: "row p" of the im2col matrix is just a pointer into the plane.
// These kernels take such rows as pointers, so the panel is never built.
#pragma once

#include <cstddef>

namespace tessera::codelets::poplin {

/// Columns one IndirectGemm panel covers: callers keep every B row readable up to the next
/// multiple of this past n, and give C rows room for as many columns.
inline constexpr std::size_t kIndirectColumnUnit = 32;

/// C[m×n] = A[m×k] · B, where row p of B is the n floats at bRows[p] + bOffset. Each element of
/// C is one fused multiply-add chain over p in increasing order, starting from zero — the
/// GEMM kernels' contract, so the column split never changes results. `scratch` holds
/// k · kIndirectColumnUnit floats.
using IndirectGemmFn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float *a,
                                std::size_t lda, const float *const *bRows, std::size_t bOffset,
                                float *c, std::size_t ldc, float *scratch);

/// C[i][l · len + x] = Σ_p a[i · lda + aColumns[p]] · rows[p][columns[l] + x] for i < m,
/// l < lines, x < len: one output phase of an input-dilated block, whose im2col rows are lines of
/// a shared padded plane and whose weights are some of the block's columns (picked, not copied).
/// The lines are packed back to back into panels of kIndirectColumnUnit columns, so short lines
/// waste none. Each element is one fused multiply-add chain over p in increasing order from
/// zero. Rows must stay readable for kIndirectColumnUnit floats past columns[l] + len; C rows
/// have room for lines · len rounded up to kIndirectColumnUnit; `scratch` holds
/// lineGemmScratchFloats(k) floats.
using LineGemmFn = void (*)(std::size_t m, std::size_t lines, std::size_t len,
                            const std::size_t *columns, std::size_t k, const float *a,
                            std::size_t lda, const std::size_t *aColumns, const float *const *rows,
                            float *c, std::size_t ldc, float *scratch);
inline constexpr std::size_t lineGemmScratchFloats(std::size_t k) {
  return (k + 1) * kIndirectColumnUnit;
}

/// dst[x] = src[x mod phases][x / phases] for x < len, a null source standing for zeros: the
/// output line of an input-dilated dimension from its phases' compact lines. Exact copies.
using InterleavePhasesFn = void (*)(std::size_t phases, std::size_t len, const float *const *src,
                                    float *dst);

/// A one-output-channel convolution (a depthwise channel) over rows read in place, one output
/// line at a time: out[l · len + x] = Σ_p w[p] · rows[p][columns[l] + x] for l < lines, x < len.
/// Each element is one FMA chain over p in increasing order from zero — IndirectGemm's chain for
/// one row of A, so the two give identical results. Rows must stay readable for
/// kIndirectColumnUnit floats past columns[l] + len; out is written only at its lines · len
/// elements.
using StencilFn = void (*)(std::size_t lines, std::size_t len, const std::size_t *columns,
                           std::size_t k, const float *w, const float *const *rows, float *out);

/// The weight gradient of such a convolution: out[p] = Σ_l Σ_x z[l · len + x] ·
/// rows[p][columns[l] + x] for p < k. Each element is summed in SIMD lanes (line by line, x in
/// vector steps), then across them, in an order fixed by (lines, len) alone. z and the rows must
/// stay readable for kIndirectColumnUnit floats past each line's end.
using StencilDotFn = void (*)(std::size_t lines, std::size_t len, const std::size_t *columns,
                              std::size_t k, const float *z, const float *const *rows, float *out);

/// The best Highway variants for this CPU, resolved once.
IndirectGemmFn indirectGemmKernel();
LineGemmFn lineGemmKernel();
InterleavePhasesFn interleavePhasesKernel();
StencilFn stencilKernel();
StencilDotFn stencilDotKernel();

} // namespace tessera::codelets::poplin
