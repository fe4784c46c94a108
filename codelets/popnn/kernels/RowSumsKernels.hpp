// SIMD kernel for the norm layers' fused reductions: the sum of a run of x and the sum of x * y
// (or of x * x) in one read, without materialising the products.
//
// The order of the additions is fixed and the same on every Highway target: element i goes to
// accumulator i % kRowSumLanes, and the accumulators are then added in index order. So the
// kernel is bit-identical to rowSumsReference wherever it runs.
#pragma once

#include <cstddef>

namespace tessera::codelets::popnn {

/// Number of interleaved partial sums the kernel keeps (4 vectors of 4 lanes on every target).
inline constexpr std::size_t kRowSumLanes = 16;

/// sums[0] += Σ x[i]; sums[1] += Σ x[i] * y[i] over i < n; y null means y = x (sum of squares).
/// The run's own sum is formed first and then added to sums[], so a caller can chain runs.
using RowSumsFn = void (*)(const float *x, const float *y, std::size_t n, float *sums);

/// The best Highway variant for this CPU, resolved once.
RowSumsFn rowSumsKernel();

/// Scalar reference the tests compare the kernel with (the same order of additions).
inline void rowSumsReference(const float *x, const float *y, std::size_t n, float *sums) {
  float s[kRowSumLanes] = {}, p[kRowSumLanes] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const float product = x[i] * (y ? y[i] : x[i]);
    s[i % kRowSumLanes] += x[i];
    p[i % kRowSumLanes] += product;
  }
  float sx = 0.0f, sxy = 0.0f;
  for (std::size_t l = 0; l < kRowSumLanes; ++l) {
    sx += s[l];
    sxy += p[l];
  }
  sums[0] += sx;
  sums[1] += sxy;
}

} // namespace tessera::codelets::popnn
