// SIMD kernel for one softmax row: max-subtracted softmax (times a scale) or log-softmax.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tessera::codelets::popnn {

/// out[i] = scale * exp(in[i] - max) / sum_j exp(in[j] - max), or with `logSoftmax`
/// out[i] = in[i] - max - log(sum_j exp(in[j] - max)). `in` and `out` may be the same array.
using SoftmaxRowFn = void (*)(const float *in, float *out, std::size_t n, float scale,
                              bool logSoftmax);

/// The best Highway variant for this CPU, resolved once.
SoftmaxRowFn softmaxRowKernel();

/// Scalar reference the tests compare the kernel with (same passes, one lane).
inline void softmaxRowReference(const float *in, float *out, std::size_t n, float scale,
                                bool logSoftmax) {
  if (n == 0)
    return;
  float max = in[0];
  for (std::size_t i = 1; i < n; ++i)
    max = std::max(max, in[i]);
  float sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum += std::exp(in[i] - max);
  if (logSoftmax) {
    const float logSum = std::log(sum);
    for (std::size_t i = 0; i < n; ++i)
      out[i] = in[i] - max - logSum;
    return;
  }
  const float factor = scale / sum;
  for (std::size_t i = 0; i < n; ++i)
    out[i] = std::exp(in[i] - max) * factor;
}

} // namespace tessera::codelets::popnn
