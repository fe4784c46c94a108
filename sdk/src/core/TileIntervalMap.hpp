// Which tile each element of a variable lives on.
#pragma once

#include <cstddef>
#include <vector>

namespace poplar::core {

/// Sorted, non-overlapping intervals of a variable's elements, each with a tile. Adjacent
/// intervals on the same tile are merged, so each entry is stored contiguously on its tile.
class TileIntervalMap {
public:
  struct Entry {
    std::size_t begin;
    std::size_t end;
    unsigned tile;
  };

  /// Maps elements [begin, end) to `tile`, replacing any earlier mapping of them.
  void assign(std::size_t begin, std::size_t end, unsigned tile);
  /// Calls fn(entry) for each mapped entry overlapping [begin, end), clipped to it, in order.
  template <class Fn> void forEachOverlap(std::size_t begin, std::size_t end, Fn &&fn) const;
  /// Elements of [begin, end) that no entry covers.
  std::size_t unmappedCount(std::size_t begin, std::size_t end) const;
  const std::vector<Entry> &entries() const { return entries_; }

private:
  std::vector<Entry> entries_;
};

template <class Fn>
void TileIntervalMap::forEachOverlap(std::size_t begin, std::size_t end, Fn &&fn) const {
  // First entry whose end is past `begin`.
  std::size_t lo = 0, hi = entries_.size();
  while (lo < hi) {
    std::size_t mid = (lo + hi) / 2;
    if (entries_[mid].end <= begin)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (std::size_t i = lo; i < entries_.size() && entries_[i].begin < end; ++i) {
    Entry e = entries_[i];
    if (e.begin < begin)
      e.begin = begin;
    if (e.end > end)
      e.end = end;
    fn(e);
  }
}

} // namespace poplar::core
