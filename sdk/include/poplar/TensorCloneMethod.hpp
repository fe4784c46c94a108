#pragma once

namespace poplar {

/// How `Graph::clone` orders the new variable's elements.
enum class TensorCloneMethod {
  /// Same element order as the source; elements the source repeats are repeated.
  PRESERVE_ORDER_AND_ALIASES,
  /// A new contiguous variable in row-major order.
  CREATE_NEW_ORDER,
  /// Same element order; repeated elements get their own storage.
  PRESERVE_ORDER_UNLESS_ALIASES,
  /// As PRESERVE_ORDER_AND_ALIASES, grouping elements by tile.
  GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES,
};

/// How `Graph::addVariable` maps a new variable.
enum class VariableMappingMethod {
  /// Leave unmapped: the caller must call `setTileMapping`.
  NONE,
  /// Spread evenly over all tiles, as `poputil::mapTensorLinearly`.
  LINEAR,
};

} // namespace poplar
