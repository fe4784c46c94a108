// poputil::cloneToIpu, copyToIpu and createIpuCopy (declared in poputil/TileMapping.hpp):
// moving a tensor to another IPU of a multi-IPU graph, tile for tile.
#include <poputil/TileMapping.hpp>

#include <string>

#include <poputil/exceptions.hpp>

namespace poputil {

poplar::Tensor cloneToIpu(poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIPU,
                          const poplar::DebugContext &debugContext,
                          poplar::TensorCloneMethod method) {
  const poplar::Target &target = graph.getTarget();
  if (dstIPU >= target.getNumIPUs())
    throw poplibs_error("poputil::cloneToIpu: dstIPU " + std::to_string(dstIPU) +
                        " is not an IPU of this target, which has " +
                        std::to_string(target.getNumIPUs()) + " IPUs");
  const auto mapping = graph.getTileMapping(t); // throws if some element is unmapped
  poplar::Tensor clone = graph.clone(t, debugContext, method);
  // The clone has t's shape, so t's per-tile element intervals place its elements too.
  const unsigned tilesPerIpu = target.getTilesPerIPU();
  std::vector<std::vector<poplar::Interval>> moved(mapping.size());
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    const std::size_t dst = std::size_t(dstIPU) * tilesPerIpu + tile % tilesPerIpu;
    moved[dst].insert(moved[dst].end(), mapping[tile].begin(), mapping[tile].end());
  }
  graph.setTileMapping(clone, moved);
  return clone;
}

poplar::Tensor copyToIpu(poplar::Graph &masterGraph, const poplar::Tensor &t,
                         poplar::program::Sequence &prog, unsigned dstIPU,
                         const poplar::DebugContext &debugContext,
                         poplar::TensorCloneMethod method) {
  poplar::Tensor moved = cloneToIpu(masterGraph, t, dstIPU, debugContext, method);
  if (t.numElements() != 0)
    prog.add(poplar::program::Copy(t, moved, false, debugContext));
  return moved;
}

poplar::Tensor createIpuCopy(poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIpu,
                             poplar::Tensor &copySrc, poplar::Tensor &copyDst,
                             const poplar::DebugContext &debugContext,
                             poplar::TensorCloneMethod method) {
  poplar::Tensor moved = cloneToIpu(graph, t, dstIpu, debugContext, method);
  // Tessera's Copy accepts a destination that repeats elements (each written with the same
  // value), so the whole tensors serve as the pair.
  copySrc = t;
  copyDst = moved;
  return moved;
}

} // namespace poputil
