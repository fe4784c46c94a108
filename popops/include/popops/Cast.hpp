// Converting tensors between element types.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/GraphElements.hpp>
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
/// convert on the tiles (other types through FLOAT). `dstType` must be QUARTER (the metadata
/// describes nothing else) and a metadata tensor of the wrong type throws
/// poputil::poplibs_error naming it.
poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    const poplar::Tensor &metadata, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {});

/// Converts `src` into the existing tensor `dst` (same shape); a QUARTER `dst` is written under
/// its own metadata, a QUARTER `src` read under its own.
void castWithOutput(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// The same as castWithOutput (Tessera kept this spelling from before castWithOutput existed).
void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// As castWithOutput, returning the program that performs the conversion.
poplar::program::Program cast(poplar::Graph &graph, poplar::Tensor src, poplar::Tensor dst,
                              const poplar::DebugContext &debugContext = {});

/// Adds to the compute set `cs` the vertices converting `src` into `dst` (same shape), one per
/// run of `dst` on each tile, so the caller can run the cast alongside other work in one
/// compute set. Any pair of FLOAT, HALF, INT, UNSIGNED_INT and BOOL converts (the same
/// rounding as the other forms); with QUARTER, the other side must be FLOAT, HALF or QUARTER
/// (a cast from an integer type needs a second compute set: use a program form). Throws
/// poputil::poplibs_error naming the tensors when the shapes or types do not fit.
void cast(poplar::Graph &graph, poplar::Tensor src, poplar::Tensor dst, poplar::ComputeSet cs);

/// As above into a new tensor of type `dstType` with `src`'s shape and tile mapping. A QUARTER
/// `dstType` needs the overload with a metadata tensor (poputil::poplibs_error otherwise).
poplar::Tensor cast(poplar::Graph &graph, poplar::Tensor src, const poplar::Type &dstType,
                    poplar::ComputeSet cs, const poplar::DebugContext &debugContext = {});

/// As above into a new QUARTER tensor read under `metadata` (one QUARTER_METADATA element).
/// `dstType` must be QUARTER: the metadata describes nothing else (poputil::poplibs_error).
poplar::Tensor cast(poplar::Graph &graph, poplar::Tensor src, const poplar::Type &dstType,
                    const poplar::Tensor &metadata, poplar::ComputeSet cs,
                    const poplar::DebugContext &debugContext = {});

/// Whether casting the single FLOAT element `input` to `outputType` (HALF) stays within the
/// relative error `tolerance`, computed on the device: a BOOL scalar that is true when
/// |x| <= 65504 (the largest half) and |half(x) - x| < tolerance * |x| (evaluated in float; so
/// 0 and NaN give false, and a value that rounds to zero does too). Lets a program pick a half
/// or float path from data it only knows at run time (a loss scale, say). Throws
/// poputil::poplibs_error naming `input` unless it is one FLOAT element and `outputType` is
/// HALF.
poplar::Tensor checkAccuracyWhenCast(poplar::Graph &graph, const poplar::Tensor &input,
                                     poplar::Type outputType, double tolerance,
                                     poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {});

} // namespace popops
