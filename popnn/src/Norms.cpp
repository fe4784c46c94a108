// popnn/Norms.hpp and the flop counts of popnn/InstanceNorm.hpp: norm parameters are plain
// [channels] variables mapped linearly (they are small and read by every tile holding acts).
#include <popnn/InstanceNorm.hpp>
#include <popnn/Norms.hpp>

#include <poputil/TileMapping.hpp>

#include "NnChecks.hpp"

namespace popnn {
namespace {

poplar::Tensor createParam(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &acts,
                           const poplar::Type &type, const poplar::DebugContext &dc,
                           const char *name) {
  detail::requireMinRank(fn, "acts", acts, 2);
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(
        detail::cat(fn, ": argument 'type' must be FLOAT or HALF, not ", type.toString()));
  poplar::Tensor param = graph.addVariable(type, {acts.dim(1)}, {dc, name});
  poputil::mapTensorLinearly(graph, param);
  return param;
}

} // namespace

std::uint64_t getNormFwdFlops(std::size_t statisticsSize, std::size_t numActsElements,
                              bool computeStats) {
  const std::uint64_t n = numActsElements, s = statisticsSize;
  // Normalising is a subtract and a multiply per element; computing the statistics adds the sum
  // and sum of squares (2 per element), whitening (2 per element) and 5 per statistic.
  return computeStats ? 6 * n + 5 * s : 2 * n;
}

std::uint64_t getNormBwdFlops(std::size_t statisticsSize, std::size_t numActsElements) {
  // gradsIn * gamma (1), then the statistics' gradient (7 per element, 2 per statistic).
  return 8 * static_cast<std::uint64_t>(numActsElements) + 2 * statisticsSize;
}

std::uint64_t getNormWuFlops(std::size_t paramsSize, std::size_t numActsElements) {
  // The product and two reductions per element; scale-and-add per parameter.
  return 3 * static_cast<std::uint64_t>(numActsElements) + 4 * paramsSize;
}

poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Type &type, const poplar::DebugContext &debugContext) {
  return createParam("popnn::createNormGamma", graph, acts, type, debugContext, "gamma");
}

poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext) {
  return createNormGamma(graph, acts, acts.elementType(), debugContext);
}

poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Type &type, const poplar::DebugContext &debugContext) {
  return createParam("popnn::createNormBeta", graph, acts, type, debugContext, "beta");
}

poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext) {
  return createNormBeta(graph, acts, acts.elementType(), debugContext);
}

std::pair<poplar::Tensor, poplar::Tensor> createNormParams(poplar::Graph &graph,
                                                           const poplar::Tensor &acts,
                                                           const poplar::DebugContext &debugContext) {
  return {createNormGamma(graph, acts, debugContext), createNormBeta(graph, acts, debugContext)};
}

namespace in {

std::uint64_t getFwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel,
                          bool computeEstimates) {
  return getNormFwdFlops(numChannels, numChannels * actsPerChannel, computeEstimates);
}

std::uint64_t getBwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel) {
  return getNormBwdFlops(numChannels, numChannels * actsPerChannel);
}

std::uint64_t getWuFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel) {
  return getNormWuFlops(numChannels, numChannels * actsPerChannel);
}

} // namespace in
} // namespace popnn
