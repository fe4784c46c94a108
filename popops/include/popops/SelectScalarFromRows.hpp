// Picking one element from each row of a matrix (the label's score, say).
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// A new rank-1 tensor of `params`' type whose element r is params[r][indices[r]].
/// `params` is [rows][width] (FLOAT or HALF), `indices` is [rows] UNSIGNED_INT. An index equal
/// to MASKED_LABEL_CODE gives 0; any other index not below `width` gives NaN. A row held by one
/// tile is read there (its result lives there too); rows spread over tiles are dealt out over all
/// tiles. Throws poputil::poplibs_error naming the argument when ranks, types or row counts do not
/// fit.
poplar::Tensor selectScalarFromRows(poplar::Graph &graph, const poplar::Tensor &params,
                                    const poplar::Tensor &indices, poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {});

} // namespace popops
