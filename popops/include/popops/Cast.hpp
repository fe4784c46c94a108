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
/// types: FLOAT, HALF, INT, UNSIGNED_INT and BOOL; others throw poputil::poplibs_error. A
/// QUARTER `src` is read under its metadata; a QUARTER `dstType` needs the overload with a
/// metadata tensor (unless `src` is QUARTER too: then the result is a copy under its metadata).
poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// As above for a destination type that requires metadata (QUARTER): `metadata`, a
/// QUARTER_METADATA tensor of one element, gives the format and scale to convert to, and the
/// result carries it (`getMetadata()`). Values round to the nearest quarter, ties to even, and
/// saturate beyond its largest; NaN and infinities become NaN. FLOAT, HALF and QUARTER sources
/// convert on the tiles (other types through FLOAT). For other destination types `metadata` is
/// not used. A metadata tensor of the wrong type throws poputil::poplibs_error naming it.
poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    const poplar::Tensor &metadata, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {});

/// Converts `src` into the existing tensor `dst` (same shape); a QUARTER `dst` is written under
/// its own metadata, a QUARTER `src` read under its own.
void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// As above, returning the program that performs the conversion.
poplar::program::Program cast(poplar::Graph &graph, const poplar::Tensor &src,
                              const poplar::Tensor &dst,
                              const poplar::DebugContext &debugContext = {});

} // namespace popops
