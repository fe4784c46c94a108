// Reference for popops/UpdateScalarInRows.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace reference {

/// params[r][indices[r]] -= 1 in the row-major [rows][width] `params`; a row whose index is
/// MASKED_LABEL_CODE (0xFFFFFFFF) is unchanged, a row whose index is otherwise >= width
/// becomes all NaN.
inline std::vector<double> updateScalarInRows(std::vector<double> params, std::size_t width,
                                              const std::vector<std::uint32_t> &indices) {
  for (std::size_t r = 0; r < indices.size(); ++r) {
    if (indices[r] == 0xFFFFFFFFU)
      continue;
    if (indices[r] >= width) {
      for (std::size_t c = 0; c < width; ++c)
        params[r * width + c] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    params[r * width + indices[r]] -= 1;
  }
  return params;
}

} // namespace reference
