// Gathering slices of a tensor along one axis at indices read on the device
// (numpy.take / the single-axis form of XLA gather).
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

} // namespace popops
