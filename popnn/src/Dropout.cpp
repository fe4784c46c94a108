#include <popnn/Dropout.hpp>

#include <poprand/RandomGen.hpp>

namespace popnn {

poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference,
                       double keepProbability, double scale, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext) {
  return poprand::dropout(graph, seed, seedModifier, input, reference, keepProbability, scale, prog,
                          {debugContext, "popnn::dropout"});
}

} // namespace popnn
