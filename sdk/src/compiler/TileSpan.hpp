// Byte ranges of tile memory, and whether two sets of them meet (the compiler's hazard checks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace poplar::compiler {

/// A byte range [begin, end) of one tile's memory.
struct TileSpan {
  unsigned tile;
  std::uint64_t begin, end;
  bool operator<(const TileSpan &o) const {
    return tile != o.tile ? tile < o.tile : begin < o.begin;
  }
};

/// True when some span of `a` overlaps some span of `b`; both sorted.
inline bool overlapsSorted(const std::vector<TileSpan> &a, const std::vector<TileSpan> &b) {
  std::size_t j = 0;
  for (const auto &x : a) {
    while (j < b.size() && (b[j].tile < x.tile || (b[j].tile == x.tile && b[j].end <= x.begin)))
      ++j;
    // b is sorted by begin; any b[k >= j] on this tile starting before x.end overlaps.
    for (std::size_t k = j; k < b.size() && b[k].tile == x.tile && b[k].begin < x.end; ++k)
      if (b[k].end > x.begin)
        return true;
  }
  return false;
}

/// True when some span of `a` overlaps some span of `b`.
inline bool overlaps(std::vector<TileSpan> a, std::vector<TileSpan> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return overlapsSorted(a, b);
}

} // namespace poplar::compiler
