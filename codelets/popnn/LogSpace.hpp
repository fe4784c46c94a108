// Log-space arithmetic shared by the CTC vertices: probabilities are carried as logarithms so
// long sequences do not underflow; log(0) is -inf.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::codelets::popnn {

constexpr float kLogZero = -std::numeric_limits<float>::infinity();

/// log(e^a + e^b) without overflow or underflow; exact when either side is log(0).
inline float logAdd(float a, float b) {
  if (a == kLogZero)
    return b;
  if (b == kLogZero)
    return a;
  const float hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

} // namespace tessera::codelets::popnn
