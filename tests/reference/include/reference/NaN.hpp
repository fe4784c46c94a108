// Reference for popops/NaN.hpp.
#pragma once

#include <cmath>
#include <vector>

namespace reference {

/// Whether any value is a NaN (false for no values).
inline bool hasNaN(const std::vector<double> &v) {
  for (double x : v)
    if (std::isnan(x))
      return true;
  return false;
}

/// Whether any value is a NaN or ±infinity (false for no values).
inline bool hasNaNOrInf(const std::vector<double> &v) {
  for (double x : v)
    if (!std::isfinite(x))
      return true;
  return false;
}

} // namespace reference
