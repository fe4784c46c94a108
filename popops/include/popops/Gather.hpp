// Gathering slices of a tensor at indices read on the device: along one axis (numpy.take), and
// XLA's general gather (start indices for several dimensions, slices of any size).
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// Parameters of a gather.
struct GatherParams {
  /// Suggested maximum number of elements per tile (kept for source compatibility; the
  /// layout follows the input's tile mapping).
  std::size_t maxElementsPerTile = 65535;

  GatherParams() = default;
  GatherParams(std::size_t maxElementsPerTile_) : maxElementsPerTile(maxElementsPerTile_) {}
};

/// A tensor of `operandShape` laid out for gathering along `axis` (as createSliceableTensor
/// for dims {axis}).
poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &operandShape, unsigned axis,
                                 GatherParams params = {},
                                 const poplar::DebugContext &debugContext = {});

/// out[i0..,j..,k..] = input[i0.., indices[j..], k..]: the result has shape
/// input.shape[:axis] + indices.shape + input.shape[axis+1:]. `indices` is UNSIGNED_INT or
/// INT; an index outside [0, input.dim(axis)) (including any negative INT) gives zeros.
/// Runs as one multiSlice compute set. `optionFlags`: the multiSlice options of
/// DynamicSlice.hpp ("remapOutOfBoundIndices", "paddingIndexUsed", "validateIndices", …).
poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input,
                      const poplar::Tensor &indices, unsigned axis, poplar::program::Sequence &prog,
                      const GatherParams &params, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &optionFlags = {});

/// A tensor of `inputShape` laid out for the general gather: the dimensions in `startIndexMap`
/// (those the indices select) are the sliced rows, and every other element is a column split
/// over the tiles (each tile holds all rows of its columns).
poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &inputShape,
                                 const std::vector<std::size_t> &sliceSizes,
                                 std::vector<unsigned> startIndexMap,
                                 const poplar::DebugContext &debugContext = {});

/// XLA's gather (https://www.tensorflow.org/xla/operation_semantics#gather). Each start vector
/// of `indices` (the elements along `indexVectorDim`; one scalar per position when
/// indexVectorDim == indices.rank()) gives the start along input dimension startIndexMap[i];
/// every other dimension starts at 0. Each start is clamped to [0, input.dim(d) -
/// sliceSizes[d]] (so an out-of-range or negative index reads the last or first slice that
/// fits), and the slice of `sliceSizes` is taken. The result has the batch dimensions of
/// `indices` (all but indexVectorDim) in order, with the slice's dimensions that are not in
/// `collapsedSliceDims` (which must have size 1) placed at the output positions `offsetDims`.
/// `indices` is UNSIGNED_INT or INT. Lowered as an element-wise map computing each slice row's
/// index, then one multiSlice compute set. `optionFlags`: the multiSlice options.
poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input,
                      const poplar::Tensor &indices, std::size_t indexVectorDim,
                      const std::vector<std::size_t> &offsetDims,
                      const std::vector<std::size_t> &sliceSizes,
                      const std::vector<std::size_t> &collapsedSliceDims,
                      const std::vector<unsigned> &startIndexMap, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &optionFlags = {});

} // namespace popops
