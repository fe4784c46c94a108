// Where each part of a reduction runs: the per-tile regions of both stages of popops::reduce.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Tensor.hpp>

namespace popops::detail {

/// `width` consecutive outputs [outBegin, outBegin + width) fed by `runs`: intervals of a flat
/// source, each a whole number of width-wide rows, folded in the order listed.
struct ReduceRegion {
  std::size_t outBegin = 0;
  std::size_t width = 0;
  std::vector<poplar::Interval> runs;
};

/// The input seen as a 2-D matrix, in whichever orientation has fewer contiguous runs:
///  - inner (`outputMajor`): [O][R], row o holds the R elements folding into output o;
///  - outer: [R][O], column o holds them.
struct ReduceInputView {
  poplar::Tensor flat; ///< The view flattened (O * R elements).
  bool outputMajor = true;
  std::size_t numOutputs = 0, numReduced = 0;
};

/// Orients `in` (reducing the sorted dimensions `reduced`) for reduction.
ReduceInputView orientInput(const poplar::Graph &graph, const poplar::Tensor &in,
                            const std::vector<std::size_t> &reduced);

/// Stage 1: per tile, the regions that tile folds from the input elements it holds (regions
/// sorted by output; each output appears at most once per tile).
std::vector<std::vector<ReduceRegion>> planPartials(const poplar::Graph &graph,
                                                    const ReduceInputView &view);

/// One tile's partials: its stage-1 regions laid out one after another in a partials tensor.
struct TilePartials {
  unsigned tile = 0;
  std::vector<ReduceRegion> regions; ///< As planned by planPartials.
  std::vector<std::size_t> offsets;  ///< Where each region starts in the tile's partials.
};

/// Stage 2: per tile owning output elements, the regions that combine the partials. Runs index
/// the concatenation of all tiles' partials (tile order, `partialBase[k]` = start of entry k).
std::vector<std::vector<ReduceRegion>>
planFinal(const std::vector<TilePartials> &partials, const std::vector<std::size_t> &partialBase,
          const std::vector<std::vector<poplar::Interval>> &outRunsPerTile);

/// Splits `regions` into at most `workers` consecutive groups [begin, end) of roughly equal
/// element counts (one vertex each, so a tile's worker contexts share the work).
std::vector<std::pair<std::size_t, std::size_t>>
splitAmongWorkers(const std::vector<ReduceRegion> &regions, unsigned workers);

} // namespace popops::detail
