// allTrue: a LOGICAL_AND reduction of the flattened tensor to one element.
#include <popops/AllTrue.hpp>

#include <popops/Fill.hpp>
#include <popops/Reduce.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

poplar::Tensor allTrue(poplar::Graph &graph, poplar::Tensor A, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext) {
  if (A.elementType() != poplar::BOOL)
    throw poputil::poplibs_error("popops::allTrue: A must be a BOOL tensor, got " +
                                 A.shortString());
  poplar::Tensor result = graph.addVariable(poplar::BOOL, {}, {debugContext, "allTrue"});
  graph.setTileMapping(result, 0);
  if (A.numElements() == 0)
    fill(graph, result, prog, true, {debugContext, "allTrue"});
  else
    reduceWithOutput(graph, A.flatten(), result, {0}, Operation::LOGICAL_AND, prog,
                     {debugContext, "allTrue"});
  return result;
}

} // namespace popops
