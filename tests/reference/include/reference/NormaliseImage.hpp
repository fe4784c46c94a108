// Reference for popops/NormaliseImage.hpp.
#pragma once

#include <cstddef>
#include <vector>

namespace reference {

/// Pixels of 3 channels (row-major [pixels][3]) to 4: out[p][c] =
/// (in[p][c] * inScale - offsets[c]) * scales[c] for c < 3, and out[p][3] = 0.
inline std::vector<double> normaliseImage(const std::vector<double> &in, double inScale,
                                          const std::vector<double> &offsets,
                                          const std::vector<double> &scales) {
  const std::size_t pixels = in.size() / 3;
  std::vector<double> out(pixels * 4, 0.0);
  for (std::size_t p = 0; p < pixels; ++p)
    for (std::size_t c = 0; c < 3; ++c)
      out[4 * p + c] = (in[3 * p + c] * inScale - offsets[c]) * scales[c];
  return out;
}

} // namespace reference
