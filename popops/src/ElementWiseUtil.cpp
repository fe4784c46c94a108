// createOutputForElementWiseOp: the output laid out like the best-spread input.
#include <popops/ElementWiseUtil.hpp>

#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

poplar::Tensor createOutputForElementWiseOp(poplar::Graph &graph,
                                            const std::vector<poplar::Tensor> &inputs,
                                            const poplar::Type &outputType,
                                            const poplar::DebugContext &debugContext) {
  const std::string context = "popops::createOutputForElementWiseOp";
  if (inputs.empty())
    throw poputil::poplibs_error(context + ": needs at least one input tensor");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid())
      throw poputil::poplibs_error(context + ": input " + std::to_string(i) +
                                   " is not a valid tensor");
    if (inputs[i].shape() != inputs[0].shape())
      throw poputil::poplibs_error(
          context + ": input " + std::to_string(i) + " " + poputil::describe(inputs[i]) +
          " has shape " + poputil::shapeString(inputs[i].shape()) + " but input 0 has shape " +
          poputil::shapeString(inputs[0].shape()) + " (all inputs must have one shape)");
  }
  // The completely mapped input spread over the most tiles (the first such on a tie).
  const poplar::Tensor *best = nullptr;
  std::size_t bestTiles = 0;
  for (const auto &t : inputs) {
    bool complete = false;
    const auto mapping = graph.getTileMapping(t, &complete);
    if (!complete || t.numElements() == 0)
      continue;
    std::size_t tiles = 0;
    for (const auto &intervals : mapping)
      tiles += intervals.empty() ? 0 : 1;
    if (!best || tiles > bestTiles) {
      best = &t;
      bestTiles = tiles;
    }
  }
  if (best)
    return graph.clone(outputType, *best, {debugContext, "out"});
  poplar::Tensor out = graph.addVariable(outputType, inputs[0].shape(), {debugContext, "out"});
  poputil::mapTensorLinearly(graph, out);
  return out;
}

} // namespace popops
