// What a popops::SlicePlan holds.
#pragma once

#include <cstddef>
#include <tuple>

namespace popops {

class SlicePlanInternal {
public:
  std::size_t numColumns = 0; ///< Unsliced elements per row (the embedding's outputSize).
  std::size_t grain = 1;      ///< Smallest column group.
  unsigned numGroups = 1;     ///< Column groups per embedding group.
  std::size_t groupSize = 1;  ///< Independent embeddings (the grouped operations' groupSize).
  unsigned tilesPerGroup = 1; ///< Embedding group g's column groups start at tile
                              ///< g * tilesPerGroup (modulo the tile count).

  auto key() const {
    return std::make_tuple(numColumns, grain, numGroups, groupSize, tilesPerGroup);
  }
  bool operator==(const SlicePlanInternal &o) const { return key() == o.key(); }
  bool operator<(const SlicePlanInternal &o) const { return key() < o.key(); }
};

} // namespace popops
