// SIMD kernels for one row of popnn::calcLoss: deltas and loss from a row of model outputs and
// its label (MASKED rows are handled by the caller).
#pragma once

#include <cmath>
#include <cstddef>

namespace tessera::codelets::popnn {

/// Cross entropy: d[i] = (p[i] * invScaling - [i == label]) * deltasScale; returns
/// -log(max(p[label] * invScaling, FLT_MIN)).
using CrossEntropyRowFn = float (*)(const float *p, float *d, std::size_t n, std::size_t label,
                                    float invScaling, float deltasScale);
/// Sum squared: d[i] = p[i] - [i == label]; returns 0.5 * sum(d[i]^2).
using SumSquaredRowFn = float (*)(const float *p, float *d, std::size_t n, std::size_t label);

/// Whether element `label` (< n) is the row's argmax as popnn::argMax picks it: the largest
/// value, NaN counting as larger than any number, ties going to the lower index.
using LabelIsRowMaxFn = bool (*)(const float *p, std::size_t n, std::size_t label);

/// The best Highway variants for this CPU, resolved once.
CrossEntropyRowFn crossEntropyRowKernel();
SumSquaredRowFn sumSquaredRowKernel();
LabelIsRowMaxFn labelIsRowMaxKernel();

/// Scalar references the tests compare the kernels with.
inline float crossEntropyRowReference(const float *p, float *d, std::size_t n, std::size_t label,
                                      float invScaling, float deltasScale) {
  for (std::size_t i = 0; i < n; ++i)
    d[i] = (p[i] * invScaling - (i == label ? 1.0f : 0.0f)) * deltasScale;
  const float picked = p[label] * invScaling;
  return -std::log(picked > 1.17549435e-38f ? picked : 1.17549435e-38f);
}

inline float sumSquaredRowReference(const float *p, float *d, std::size_t n, std::size_t label) {
  double sum = 0; // the reference accumulates in double: the kernel must agree within rounding
  for (std::size_t i = 0; i < n; ++i) {
    d[i] = p[i] - (i == label ? 1.0f : 0.0f);
    sum += static_cast<double>(d[i]) * d[i];
  }
  return static_cast<float>(0.5 * sum);
}

inline bool labelIsRowMaxReference(const float *p, std::size_t n, std::size_t label) {
  std::size_t best = 0; // NaN above every number; the lower index wins ties
  for (std::size_t i = 1; i < n; ++i) {
    const bool bestNaN = std::isnan(p[best]), iNaN = std::isnan(p[i]);
    if (!bestNaN && (iNaN || p[i] > p[best]))
      best = i;
  }
  return best == label;
}

} // namespace tessera::codelets::popnn
