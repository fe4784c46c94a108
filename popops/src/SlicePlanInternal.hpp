// What a popops::SlicePlan holds.
#pragma once

#include <cstddef>

namespace popops {

class SlicePlanInternal {
public:
  std::size_t numColumns = 0; ///< Unsliced elements per row (the embedding's outputSize).
  std::size_t grain = 1;      ///< Smallest column group.
  unsigned numGroups = 1;     ///< Column groups, on tiles 0 … numGroups-1.

  bool operator==(const SlicePlanInternal &o) const {
    return numColumns == o.numColumns && grain == o.grain && numGroups == o.numGroups;
  }
};

} // namespace popops
