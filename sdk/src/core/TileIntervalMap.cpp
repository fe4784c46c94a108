#include "core/TileIntervalMap.hpp"

#include <algorithm>

namespace poplar::core {

std::size_t TileIntervalMap::unmappedCount(std::size_t begin, std::size_t end) const {
  std::size_t covered = 0;
  forEachOverlap(begin, end, [&](const Entry &e) { covered += e.end - e.begin; });
  return (end - begin) - covered;
}

void TileIntervalMap::assign(std::size_t begin, std::size_t end, unsigned tile) {
  if (begin >= end)
    return;
  // Fast path: appending past the last entry (the common case when mapping linearly).
  if (entries_.empty() || entries_.back().end <= begin) {
    if (!entries_.empty() && entries_.back().end == begin && entries_.back().tile == tile)
      entries_.back().end = end;
    else
      entries_.push_back({begin, end, tile});
    return;
  }
  std::vector<Entry> result;
  result.reserve(entries_.size() + 2);
  auto push = [&](Entry e) {
    if (e.begin >= e.end)
      return;
    if (!result.empty() && result.back().end == e.begin && result.back().tile == e.tile)
      result.back().end = e.end;
    else
      result.push_back(e);
  };
  bool inserted = false;
  for (const Entry &e : entries_) {
    if (e.end <= begin || e.begin >= end) {
      if (!inserted && e.begin >= end) {
        push({begin, end, tile});
        inserted = true;
      }
      push(e);
      continue;
    }
    // e overlaps the new interval: keep the parts outside it.
    push({e.begin, std::min(e.end, begin), e.tile});
    if (!inserted) {
      push({begin, end, tile});
      inserted = true;
    }
    push({std::max(e.begin, end), e.end, e.tile});
  }
  if (!inserted)
    push({begin, end, tile});
  entries_ = std::move(result);
}

} // namespace poplar::core
