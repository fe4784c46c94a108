// SIMD kernels for runs of a [rows][columns] row whose coefficients or sums vary by column (the
// per-channel γ, β and parameter gradients of layer norm on [tokens][hidden] activations):
//  - columnAffine: out[j] = gamma[j] * x[j] (+ beta[j]);
//  - columnSums:   sumX[j] += x[j] and sumXY[j] += x[j] * y[j].
// Every lane is computed on its own (no reassociation across lanes), so both kernels are
// bit-identical to their scalar references on every Highway target.
#pragma once

#include <cstddef>

namespace tessera::codelets::popnn {

/// `beta` may be null (no shift). `out` may alias `x`.
using ColumnAffineFn = void (*)(const float *x, const float *gamma, const float *beta, float *out,
                                std::size_t n);
/// `sumXY` may be null (then `y` is ignored): only the sums of x.
using ColumnSumsFn = void (*)(const float *x, const float *y, std::size_t n, float *sumX,
                              float *sumXY);

/// The best Highway variants for this CPU, resolved once.
ColumnAffineFn columnAffineKernel();
ColumnSumsFn columnSumsKernel();

/// Scalar references the tests compare the kernels with.
inline void columnAffineReference(const float *x, const float *gamma, const float *beta, float *out,
                                  std::size_t n) {
  for (std::size_t j = 0; j < n; ++j)
    out[j] = beta ? gamma[j] * x[j] + beta[j] : gamma[j] * x[j];
}

inline void columnSumsReference(const float *x, const float *y, std::size_t n, float *sumX,
                                float *sumXY) {
  for (std::size_t j = 0; j < n; ++j) {
    sumX[j] += x[j];
    if (sumXY)
      sumXY[j] += x[j] * y[j];
  }
}

} // namespace tessera::codelets::popnn
