// Which base row a slice row reads or writes: the one rule every slice vertex shares, and the
// index-mode bits the library sets on the vertices (from the slice options).
#pragma once

#include <cstddef>
#include <optional>

namespace tessera::codelets::popops {

/// dynamicSlice/Update: an offset >= numBaseRows is read as 0 and rows wrap round the base.
inline constexpr unsigned kIndexWrap = 1;
/// remapOutOfBoundIndices: a slice that does not fit starts at row 0 instead.
inline constexpr unsigned kIndexRemap = 2;
/// paddingIndexUsed: offset == numBaseRows slices zeros / updates nothing, and is never
/// reported as out of range.
inline constexpr unsigned kIndexPadding = 4;
/// validateIndices: an out-of-range offset fails the vertex (as under debug.runtimeVerify).
inline constexpr unsigned kIndexValidate = 8;

/// True when `offset` is the padding index of a base of `numBaseRows` rows under `mode`.
inline bool isPaddingIndex(unsigned offset, std::size_t numBaseRows, unsigned mode) {
  return (mode & kIndexPadding) && std::size_t(offset) == numBaseRows;
}

/// Base row for row `j` (0 <= j < sliceRows) of a slice starting at `offset` in a base of
/// `numBaseRows` rows, or nothing when the slice is out of range (reads zeros, writes nothing).
/// Without kIndexWrap or kIndexRemap a slice that does not fit is out of range.
inline std::optional<std::size_t> baseRowOf(unsigned offset, std::size_t j, std::size_t sliceRows,
                                            std::size_t numBaseRows, unsigned mode) {
  if (numBaseRows == 0 || isPaddingIndex(offset, numBaseRows, mode))
    return std::nullopt;
  if (mode & kIndexWrap) {
    const std::size_t start = offset < numBaseRows ? offset : 0;
    return (start + j) % numBaseRows;
  }
  if (std::size_t(offset) + sliceRows > numBaseRows) {
    if ((mode & kIndexRemap) && sliceRows <= numBaseRows)
      return j;
    return std::nullopt;
  }
  return offset + j;
}

} // namespace tessera::codelets::popops
