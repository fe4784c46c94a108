// Logical AND of every element of a BOOL tensor.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// A new scalar BOOL variable that `prog` sets to the AND of all elements of `A` (true for an
/// empty `A`), computed by a LOGICAL_AND reduction where the elements live. Throws
/// poputil::poplibs_error naming `A` when its elements are not BOOL.
poplar::Tensor allTrue(poplar::Graph &graph, poplar::Tensor A, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

} // namespace popops
