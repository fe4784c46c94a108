// Grouping the rows of a [rows][n] tensor by the tile to work on each (poputil::wholeRowTiles),
// so one vertex per tile can process whole rows (sort, topK).
#pragma once

#include <map>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace popops::detail {

/// tile -> rows (ascending) worked on there. Throws invalid_tile_mapping if unmapped.
std::map<unsigned, std::vector<std::size_t>> rowsByTile(const poplar::Graph &graph,
                                                        const poplar::Tensor &rows2d);

/// The given rows of `rows2d` joined into one 1-D tensor.
poplar::Tensor joinRows(const poplar::Tensor &rows2d, const std::vector<std::size_t> &rows);

} // namespace popops::detail
