// SIMD kernels for filling memory with one value (popops::fill / popops::zero).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::codelets::popops {

using FillFloatFn = void (*)(float *out, std::size_t n, float value);
/// The best Highway variant for this CPU, resolved once.
FillFloatFn fillFloatKernel();

/// Scalar reference the tests compare the kernel with.
inline void fillFloatReference(float *out, std::size_t n, float value) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = value;
}

} // namespace tessera::codelets::popops
