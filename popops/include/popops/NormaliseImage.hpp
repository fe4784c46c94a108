// Normalising 3-channel images and padding them to 4 channels (a layout convolutions take
// more efficiently), e.g. for the first layer of a vision model.
#pragma once

#include <cstddef>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// A new variable of `shape` (innermost dimension 3 channels; UNSIGNED_CHAR, HALF or FLOAT)
/// spread over the tiles whole pixels at a time, as normaliseImage reads it best. Throws
/// poputil::poplibs_error when the type or the innermost dimension does not fit.
poplar::Tensor createNormaliseImageInput(poplar::Graph &graph, const poplar::Type &type,
                                         const poplar::ArrayRef<std::size_t> shape,
                                         const poplar::DebugContext &debugContext = {});

/// A new tensor shaped as `tIn` with 4 channels: channel c < 3 of each pixel is
/// (tIn[c] * inScale - offsets[c]) * scales[c], channel 3 is zero. UNSIGNED_CHAR input gives
/// HALF output, other types keep theirs; `offsets` and `scales` are shape {3} of the output
/// type. Each pixel is worked on, and its output placed, on the tile holding it. Throws
/// poputil::poplibs_error naming the argument whose type or shape does not fit.
poplar::Tensor normaliseImage(poplar::Graph &graph, poplar::program::Sequence &seq,
                              poplar::Tensor tIn, float inScale, poplar::Tensor offsets,
                              poplar::Tensor scales, const poplar::DebugContext &debugContext = {});

} // namespace popops
