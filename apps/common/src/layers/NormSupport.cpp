#include "layers/NormSupport.hpp"

#include <popops/Cast.hpp>

namespace tessera::apps::detail {

unsigned firstTileOf(const poplar::Graph &graph, const poplar::Tensor &x) {
  const auto mapping = graph.getTileMapping(x);
  for (unsigned t = 0; t < mapping.size(); ++t)
    if (!mapping[t].empty())
      return t;
  return 0;
}

poplar::Tensor perChannelVariable(BuildContext &ctx, poplar::Graph &graph, const std::string &name,
                                  std::size_t channels, float init, unsigned tile) {
  poplar::Tensor t = graph.addVariable(poplar::FLOAT, {channels}, name);
  graph.setTileMapping(t, tile);
  poplar::Tensor c = graph.addConstant(poplar::FLOAT, {channels}, init, name + "0");
  graph.setTileMapping(c, tile);
  ctx.initialise.add(poplar::program::Copy(c, t));
  return t;
}

poplar::Tensor inWindow(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &like,
                        poplar::program::Sequence &prog, const std::string &name) {
  bool complete = false;
  graph.getTileMapping(t, &complete);
  if (complete)
    return t;
  // Copied into the window, so every tensor the norm creates stays there too.
  bool likeInWindow = false;
  graph.getTileMapping(like, &likeInWindow);
  poplar::Tensor copy = likeInWindow ? graph.clone(t.elementType(), like, name)
                                     : graph.addVariable(t.elementType(), t.shape(), name);
  if (!likeInWindow)
    mapActivationLinearly(graph, copy);
  prog.add(poplar::program::Copy(t, copy, false, name));
  return copy;
}

poplar::Tensor asType(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Type &type,
                      poplar::program::Sequence &prog, const std::string &name) {
  return t.elementType() == type ? t : popops::cast(graph, t, type, prog, name);
}

} // namespace tessera::apps::detail
