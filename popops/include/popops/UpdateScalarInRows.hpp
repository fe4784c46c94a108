// Subtracting 1 from one element per row in place: turns softmax probabilities into the
// gradient of sparse softmax cross-entropy.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// For each row r of `params` ([rows][width], FLOAT or HALF): params[r][indices[r]] -= 1.
/// `indices` is [rows] UNSIGNED_INT. A row whose index is MASKED_LABEL_CODE is left alone; a
/// row whose index is otherwise not below `width` becomes all NaN. A row held by one tile is
/// updated there; rows spread over tiles are dealt out over all tiles. Throws
/// poputil::poplibs_error naming the argument when ranks, types or row counts do not fit.
void updateScalarInRows(poplar::Graph &graph, const poplar::Tensor &params,
                        const poplar::Tensor &indices, poplar::program::Sequence &program,
                        const poplar::DebugContext &debugContext = {});

} // namespace popops
