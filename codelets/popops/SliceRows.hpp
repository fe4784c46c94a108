// Which base row a slice row reads or writes: the one rule every slice vertex shares.
#pragma once

#include <cstddef>
#include <optional>

namespace tessera::codelets::popops {

/// Base row for row `j` (0 <= j < sliceRows) of a slice starting at `offset` in a base of
/// `numBaseRows` rows, or nothing when the slice is out of range.
/// wrap != 0 (dynamicSlice/Update): an offset >= numBaseRows is read as 0 and rows wrap round
/// the end of the base. wrap == 0 (multiSlice/Update): a slice that does not fit is out of range.
inline std::optional<std::size_t> baseRowOf(unsigned offset, std::size_t j, std::size_t sliceRows,
                                            std::size_t numBaseRows, unsigned wrap) {
  if (numBaseRows == 0)
    return std::nullopt;
  if (wrap) {
    const std::size_t start = offset < numBaseRows ? offset : 0;
    return (start + j) % numBaseRows;
  }
  if (std::size_t(offset) + sliceRows > numBaseRows)
    return std::nullopt;
  return offset + j;
}

} // namespace tessera::codelets::popops
