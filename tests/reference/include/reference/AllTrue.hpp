// Reference for popops/AllTrue.hpp.
#pragma once

#include <vector>

namespace reference {

/// AND of all values read as booleans (non-zero = true); true for no values.
inline bool allTrue(const std::vector<double> &v) {
  for (double x : v)
    if (x == 0)
      return false;
  return true;
}

} // namespace reference
