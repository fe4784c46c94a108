// Splitting a tensor into the per-tile runs that vertices can work on in place.
#pragma once

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

} // namespace popops::detail
