// Reference for popops/Encoding.hpp: one-hot encoding and iota.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reference {

/// [indices.size()][classes] row-major: element (r, c) is `on` when indices[r] == c and `off`
/// otherwise. An index outside [0, classes) — MASKED_LABEL_CODE (0xFFFFFFFF, or -1 as INT)
/// among them — matches no column, so its row is all `off`.
inline std::vector<double> encodeOneHot(const std::vector<std::int64_t> &indices,
                                        std::size_t classes, double on = 1, double off = 0) {
  std::vector<double> out(indices.size() * classes, off);
  for (std::size_t r = 0; r < indices.size(); ++r)
    if (indices[r] >= 0 && static_cast<std::uint64_t>(indices[r]) < classes)
      out[r * classes + static_cast<std::size_t>(indices[r])] = on;
  return out;
}

/// start, start + 1, …, start + n - 1.
inline std::vector<double> iota(std::int64_t start, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<double>(start + static_cast<std::int64_t>(i));
  return out;
}

} // namespace reference
