// Which tile works on which rows, for vertices that need whole rows at a time.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace popnn::detail {

/// Rows [first, last) of a [rows][cols] tensor, worked on by one vertex on `tile`.
struct RowBlock {
  std::size_t first, last;
  unsigned tile;
};

/// Consecutive rows with the same tile (poputil::wholeRowTiles), in row order; none when the
/// rows are empty.
std::vector<RowBlock> rowBlocks(const poplar::Graph &graph, const poplar::Tensor &rows2d);

} // namespace popnn::detail
