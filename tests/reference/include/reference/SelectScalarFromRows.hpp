// Reference for popops/SelectScalarFromRows.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace reference {

/// out[r] = params[r][indices[r]] for the row-major [rows][width] `params`; an index equal to
/// MASKED_LABEL_CODE (0xFFFFFFFF) gives 0, any other index >= width gives NaN.
inline std::vector<double> selectScalarFromRows(const std::vector<double> &params,
                                                std::size_t width,
                                                const std::vector<std::uint32_t> &indices) {
  std::vector<double> out(indices.size());
  for (std::size_t r = 0; r < indices.size(); ++r) {
    if (indices[r] == 0xFFFFFFFFU)
      out[r] = 0;
    else if (indices[r] >= width)
      out[r] = std::numeric_limits<double>::quiet_NaN();
    else
      out[r] = params[r * width + indices[r]];
  }
  return out;
}

} // namespace reference
