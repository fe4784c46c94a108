// Checking a tensor for NaN (and infinite) values, e.g. to skip an optimiser step whose
// gradients overflowed.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// A new scalar BOOL tensor (on tile 0) that `prog` sets to true when any element of `src` is a
/// NaN, false otherwise (false for an empty `src`). `src` is FLOAT or HALF of any shape and must
/// be mapped: each tile checks its own elements, then the per-tile answers are OR-reduced.
/// Throws poputil::poplibs_error naming `src` for other element types.
poplar::Tensor hasNaN(poplar::Graph &graph, const poplar::Tensor &src,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

/// As hasNaN, true when any element is a NaN or an infinity (positive or negative).
poplar::Tensor hasNaNOrInf(poplar::Graph &graph, const poplar::Tensor &src,
                           poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});

} // namespace popops
