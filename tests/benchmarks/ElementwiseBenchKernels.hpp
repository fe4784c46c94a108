// The hand-written Highway loops elementwise_bench measures popops::map against.
#pragma once

#include <cstddef>

namespace elementwise_bench {

/// out[i] = a[i] + b[i].
void highwayAdd(const float *a, const float *b, float *out, std::size_t n);
/// out[i] = max(|(a + b) * a - b * 0.5|, 0.25): the same six operations as the fused map.
void highwayFused6(const float *a, const float *b, float *out, std::size_t n);

} // namespace elementwise_bench
