// Converting tensors between element types.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace popops {

/// A new tensor with `src`'s shape and tile mapping holding `src` converted to `dstType`
/// (C++ conversion rules; to HALF rounds to nearest even; to BOOL gives x != 0). Supported
/// types: FLOAT, HALF, INT, UNSIGNED_INT and BOOL; others throw poputil::poplibs_error.
poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// Converts `src` into the existing tensor `dst` (same shape).
void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// As above, returning the program that performs the conversion.
poplar::program::Program cast(poplar::Graph &graph, const poplar::Tensor &src,
                              const poplar::Tensor &dst,
                              const poplar::DebugContext &debugContext = {});

} // namespace popops
