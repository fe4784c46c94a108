// Splitting a tensor into the per-tile runs that vertices can work on in place.
#pragma once

#include <utility>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Tensor.hpp>

namespace popops::detail {

/// Per tile, the intervals of `t`'s (row-major) elements that are mapped to that tile AND
/// contiguous in memory, so a vertex on that tile can use each run without any exchange.
/// Throws poplar::invalid_tile_mapping naming the tensor if some element is unmapped.
std::vector<std::vector<poplar::Interval>> contiguousRunsPerTile(const poplar::Graph &graph,
                                                                 const poplar::Tensor &t);

/// The runs of contiguousRunsPerTile gathered, per tile, into groups that lie back to back in
/// memory, listed in memory order: concatenating one group's slices of `t` gives a contiguous
/// tensor. A table laid out column-block by column-block is one group per tile however many
/// rows it has, so one vertex can cover what would otherwise be one run per row.
std::vector<std::vector<std::vector<poplar::Interval>>>
memoryOrderedRunsPerTile(const poplar::Graph &graph, const poplar::Tensor &t);

/// Number of groups over all tiles, and the number of tiles holding any.
std::pair<std::size_t, std::size_t>
countGroups(const std::vector<std::vector<std::vector<poplar::Interval>>> &groups);

} // namespace popops::detail
