// Helpers for spreading tensors over tiles.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

/// Splits `shape`'s elements into runs of whole grains (`grainSize` elements), giving each
/// tile in turn the same number of grains but never fewer than `minElementsPerTile` elements
/// (so small tensors use few tiles). The last tile used may get less.
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                                 std::vector<std::size_t> shape,
                                                                 unsigned minElementsPerTile,
                                                                 unsigned grainSize);
/// As above for `t`, with Poplar's defaults: 128 elements minimum, the vector width as grain.
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                                 const poplar::Tensor &t);

/// Maps `t` with `calcLinearTileMapping`.
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                       unsigned grainSize);
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t);

/// How many more elements the fullest tile holds than it would under a linear mapping with
/// the same grain and minimum: 0 for a perfectly balanced tensor.
unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t,
                          unsigned minElementsPerTile = 0, unsigned grainSize = 1);

/// Tiles that hold at least one element of `t`, in increasing order.
std::vector<unsigned> getTilesUsed(const poplar::Graph &graph, const poplar::Tensor &t);

/// Tessera extension, for vertices that work on whole rows of a [rows][n] tensor (softmax,
/// losses, top-k): the tile to work on each row. A row held whole by one tile is worked on
/// there. Rows spread over several tiles are dealt out evenly over all the target's tiles in row
/// order — the tile of their first element is often the same for every row, and gathering them
/// all there would overflow it. Throws invalid_tile_mapping if an element is unmapped.
std::vector<unsigned> wholeRowTiles(const poplar::Graph &graph, const poplar::Tensor &rows2d);

} // namespace poputil
