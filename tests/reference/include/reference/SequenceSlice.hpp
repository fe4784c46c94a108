// Reference for popops/SequenceSlice.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reference {

/// tOut ([outRows][rowSize], row-major) after copying, for each entry i until the first
/// n[i] == 0, rows inOffset[i] + j of tIn to rows outOffset[i] + j (j < n[i]); a row outside
/// either tensor is not copied, and the first entry covering an output row wins. Rows no
/// entry covers are zeroed when `zeroUnused`, else kept.
inline std::vector<double> sequenceSlice(const std::vector<double> &tIn, std::size_t inRows,
                                         std::vector<double> tOut, std::size_t outRows,
                                         std::size_t rowSize, const std::vector<std::uint32_t> &n,
                                         const std::vector<std::uint32_t> &inOffset,
                                         const std::vector<std::uint32_t> &outOffset,
                                         bool zeroUnused) {
  for (std::size_t r = 0; r < outRows; ++r) {
    long long src = -1;
    for (std::size_t i = 0; i < n.size() && n[i] != 0; ++i)
      if (r >= outOffset[i] && r < std::uint64_t(outOffset[i]) + n[i]) {
        const std::uint64_t row = inOffset[i] + (r - outOffset[i]);
        src = row < inRows ? static_cast<long long>(row) : -1;
        break;
      }
    for (std::size_t c = 0; c < rowSize; ++c) {
      if (src >= 0)
        tOut[r * rowSize + c] = tIn[static_cast<std::size_t>(src) * rowSize + c];
      else if (zeroUnused)
        tOut[r * rowSize + c] = 0;
    }
  }
  return tOut;
}

} // namespace reference
