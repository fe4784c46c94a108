// SIMD kernel for a run of elements sharing per-row coefficients: out = a*x + b*y + k (or a*x + k
// without y). Used by popnn's norm layers, whose per-channel (or per-group) scale and shift would
// otherwise be broadcast element by element.
#pragma once

#include <cstddef>

namespace tessera::codelets::popnn {

/// `y` may be null (then b is ignored). `out` may alias `x` or `y`.
using RowAffineFn = void (*)(const float *x, const float *y, float *out, std::size_t n, float a,
                             float b, float k);

/// The best Highway variant for this CPU, resolved once.
RowAffineFn rowAffineKernel();

/// Scalar reference the tests compare the kernel with.
inline void rowAffineReference(const float *x, const float *y, float *out, std::size_t n, float a,
                               float b, float k) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = y ? a * x[i] + b * y[i] + k : a * x[i] + k;
}

} // namespace tessera::codelets::popnn
