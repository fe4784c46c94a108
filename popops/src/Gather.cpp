// popops::gather (single axis) as one multiSlice of unit slices.
#include <popops/DynamicSlice.hpp>
#include <popops/Gather.hpp>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "SliceCommon.hpp"

namespace popops {

poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &operandShape, unsigned axis,
                                 GatherParams, const poplar::DebugContext &debugContext) {
  return createSliceableTensor(graph, type, operandShape, {axis}, {1}, 0, debugContext);
}

poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input,
                      const poplar::Tensor &indices, unsigned axis, poplar::program::Sequence &prog,
                      const GatherParams &, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &optionFlags) {
  const std::string fn = "popops::gather";
  if (axis >= input.rank())
    throw poputil::poplibs_error(fn + ": axis " + std::to_string(axis) + " is out of range for " +
                                 poputil::describe(input));
  if (indices.elementType() != poplar::UNSIGNED_INT && indices.elementType() != poplar::INT)
    throw poputil::poplibs_error(fn + ": indices " + poputil::describe(indices) +
                                 " must be UNSIGNED_INT or INT");
  const poplar::Tensor offsets = indices.elementType() == poplar::INT
                                     ? indices.flatten().reinterpret(poplar::UNSIGNED_INT)
                                     : indices.flatten();
  const poplar::Tensor slices = multiSlice(graph, input, offsets, {axis}, {1}, prog, SlicePlan(),
                                           optionFlags, {debugContext, "gather"});
  // [M][..., 1 (axis), ...] -> [indices.shape..., before..., after...] -> move indices dims.
  std::vector<std::size_t> shape = indices.shape();
  for (std::size_t d = 0; d < input.rank(); ++d)
    if (d != axis)
      shape.push_back(input.dim(d));
  const unsigned k = static_cast<unsigned>(indices.rank());
  std::vector<unsigned> perm;
  for (unsigned d = 0; d < axis; ++d)
    perm.push_back(k + d);
  for (unsigned d = 0; d < k; ++d)
    perm.push_back(d);
  for (unsigned d = k + axis; d < shape.size(); ++d)
    perm.push_back(d);
  return slices.reshape(shape).dimShuffle(perm);
}

} // namespace popops
