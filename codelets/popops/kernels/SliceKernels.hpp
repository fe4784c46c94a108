// SIMD kernels behind popops::multiUpdateAdd: acc[i] += scale * x[i].
#pragma once

#include <cstddef>

namespace tessera::codelets::popops {

using ScaledAccumulateFloatFn = void (*)(float *acc, const float *x, std::size_t n, float scale);
/// The best Highway variant for this CPU, resolved once (uses a fused multiply-add where the
/// target has one, so results may differ from the reference in the last bit).
ScaledAccumulateFloatFn scaledAccumulateFloatKernel();

/// Scalar reference the tests compare the kernel with.
inline void scaledAccumulateFloatReference(float *acc, const float *x, std::size_t n, float scale) {
  for (std::size_t i = 0; i < n; ++i)
    acc[i] += scale * x[i];
}

} // namespace tessera::codelets::popops
