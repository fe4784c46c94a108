// popnn::bn: batch normalisation through the shared NormCore with per-channel statistics.
#include <popnn/BatchNorm.hpp>

#include <poplin/Norms.hpp>
#include <popops/ElementWise.hpp>
#include <poputil/TileMapping.hpp>

#include "NnChecks.hpp"
#include "NormCore.hpp"
#include "RowAffine.hpp"

namespace popnn::bn {
namespace {

detail::NormLayout layout(const char *fn) {
  detail::NormLayout l;
  l.kind = detail::NormLayout::Kind::BATCH;
  l.fn = detail::cat("popnn::bn::", fn);
  return l;
}

} // namespace

std::pair<poplar::Tensor, poplar::Tensor>
batchNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                    poplar::program::Sequence &prog, bool unbiasedVarEstimate, bool stableAlgo,
                    const poplar::Type &, const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &) {
  return detail::normStatistics(graph, layout("batchNormStatistics"), acts, eps,
                                unbiasedVarEstimate, stableAlgo, prog,
                                {debugContext, "batchNormStatistics"});
}

poplar::Tensor batchNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                               poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext,
                               const poplar::OptionFlags &) {
  return detail::normWhiten(graph, layout("batchNormWhiten"), acts, mean, invStdDev, prog,
                            {debugContext, "batchNormWhiten"});
}

std::pair<poplar::Tensor, poplar::Tensor>
batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
               const poplar::Tensor &beta, const poplar::Tensor &mean,
               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  return detail::normalise(graph, layout("batchNormalise"), acts, gamma, beta, mean, invStdDev,
                           prog, {debugContext, "batchNormalise"});
}

poplar::Tensor batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Tensor &combinedMultiplicand,
                              const poplar::Tensor &addend, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext,
                              const poplar::OptionFlags &) {
  using namespace popops::expr;
  const auto l = layout("batchNormalise");
  l.check(acts, "acts");
  detail::requireShape(l.fn, "combinedMultiplicand", combinedMultiplicand, {acts.dim(1)});
  detail::requireShape(l.fn, "addend", addend, {acts.dim(1)});
  if (acts.numElements() == 0) {
    poplar::Tensor out =
        graph.addVariable(acts.elementType(), acts.shape(), {debugContext, "normalised"});
    poputil::mapTensorLinearly(graph, out);
    return out;
  }
  if (acts.elementType() == poplar::FLOAT && combinedMultiplicand.elementType() == poplar::FLOAT &&
      addend.elementType() == poplar::FLOAT) {
    if (detail::storedChannelMajor(acts))
      return detail::fromChannelMajorRows(
          detail::rowAffine(graph, detail::channelMajorRows(acts), {}, combinedMultiplicand, {},
                            addend, prog, {debugContext, "batchNormaliseInference"}),
          acts);
    const std::size_t b = acts.dim(0), c = acts.dim(1);
    auto perRow = [&](const poplar::Tensor &perChannel, const char *name) {
      poplar::Tensor out = graph.addVariable(poplar::FLOAT, {b, c}, {debugContext, name});
      poputil::mapTensorLinearly(graph, out);
      popops::mapWithOutput(graph, _1 + 0.0f,
                            {perChannel.reshape({1, c}).broadcast(static_cast<unsigned>(b), 0)},
                            out, prog, {debugContext, name});
      return out.flatten();
    };
    return detail::rowAffine(graph, acts.reshape({b * c, acts.numElements() / (b * c)}), {},
                             perRow(combinedMultiplicand, "multiplicandRows"), {},
                             perRow(addend, "addendRows"), prog,
                             {debugContext, "batchNormaliseInference"})
        .reshape(acts.shape());
  }
  return popops::map(graph, _1 * _2 + _3,
                     {detail::channelView(acts), detail::channelBroadcast(combinedMultiplicand),
                      detail::channelBroadcast(addend)},
                     prog, {debugContext, "batchNormaliseInference"})
      .reshape(acts.shape());
}

std::pair<poplar::Tensor, poplar::Tensor>
batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                        const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                        const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                        const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options) {
  const poplar::Tensor w = batchNormWhiten(graph, acts, mean, iStdDev, prog, debugContext);
  return batchNormParamGradients(graph, w, gradsIn, prog, partialsType, debugContext, options);
}

std::pair<poplar::Tensor, poplar::Tensor>
batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                        const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                        const poplar::Type &, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &) {
  return detail::normParamGradients(graph, layout("batchNormParamGradients"), actsWhitened, gradsIn,
                                    prog, {debugContext, "batchNormParamGradients"});
}

poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &partialsType,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options) {
  const poplar::Tensor w = batchNormWhiten(graph, acts, mean, invStdDev, prog, debugContext);
  return batchNormGradients(graph, w, gradsIn, invStdDev, gamma, prog, partialsType, debugContext,
                            options);
}

poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &) {
  return detail::normGradients(graph, layout("batchNormGradients"), actsWhitened, gradsIn,
                               invStdDev, gamma, prog, {debugContext, "batchNormGradients"});
}

void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                          const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                          poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  detail::normParamUpdate(graph, "popnn::bn::batchNormParamUpdate", gammaDelta, betaDelta, scale,
                          gamma, beta, prog, {debugContext, "batchNormParamUpdate"});
}

void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
          const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
          poplar::Tensor &beta, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  detail::normParamUpdate(graph, "popnn::bn::batchNormParamUpdate", gammaDelta, betaDelta, scale, gamma, beta,
                          prog, {debugContext, "batchNormParamUpdate"});
}

namespace {

/// The distributed forms' own check of normBatchSize, so the message names the bn argument.
void checkNormBatchSize(const std::string &fn, const poplar::Tensor &acts, const char *name,
                        unsigned normBatchSize,
                        const poplin::DistributedNormReduceCallback &callback) {
  if (acts.rank() < 2)
    detail::fail(fn, name, acts, "must have shape [B][C][field...]");
  const std::size_t b = acts.dim(0);
  if (callback && b > 0 && normBatchSize > b && normBatchSize % b != 0)
    throw poputil::poplibs_error(detail::cat(fn, ": normBatchSize ", normBatchSize,
                                             " must be a whole multiple of the replica batch ", b,
                                             " (dimension 0 of ", name, ")"));
}

} // namespace

std::pair<poplar::Tensor, poplar::Tensor> distributedBatchNormStatistics(
    poplar::Graph &replicatedGraph, const poplar::Tensor acts, float eps,
    poplar::program::Sequence &prog, bool unbiasedVarEstimate,
    poplin::DistributedNormReduceCallback reduceCallback, unsigned normBatchSize, bool stableAlgo,
    const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
    const poplar::OptionFlags &) {
  const auto l = layout("distributedBatchNormStatistics");
  l.check(acts, "acts");
  checkNormBatchSize(l.fn, acts, "acts", normBatchSize, reduceCallback);
  return poplin::distributedNormStatistics(
      replicatedGraph, acts, eps, prog, unbiasedVarEstimate, std::move(reduceCallback),
      normBatchSize, stableAlgo, partialsType, {debugContext, "distributedBatchNormStatistics"});
}

poplar::Tensor distributedBatchNormGradients(
    poplar::Graph &replicatedGraph, const poplar::Tensor &actsWhitened,
    const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
    poplar::program::Sequence &prog, poplin::DistributedNormReduceCallback reduceCallback,
    unsigned normBatchSize, const poplar::Type &partialsType,
    const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  const auto l = layout("distributedBatchNormGradients");
  l.check(actsWhitened, "actsWhitened");
  l.check(gradsIn, "gradsIn");
  if (gradsIn.shape() != actsWhitened.shape())
    detail::fail(l.fn, "gradsIn", gradsIn,
                 detail::cat("must have the shape of actsWhitened ",
                             detail::shapeString(actsWhitened.shape())));
  detail::requireShape(l.fn, "invStdDev", invStdDev, {actsWhitened.dim(1)});
  detail::requireShape(l.fn, "gamma", gamma, {actsWhitened.dim(1)});
  checkNormBatchSize(l.fn, actsWhitened, "actsWhitened", normBatchSize, reduceCallback);
  const poplar::DebugContext dc{debugContext, "distributedBatchNormGradients"};
  const poplar::Tensor g = poplin::normGradients(replicatedGraph, gradsIn, gamma, prog, dc);
  return poplin::distributedNormStatisticsGradients(replicatedGraph, actsWhitened, g, invStdDev,
                                                    prog, std::move(reduceCallback), normBatchSize,
                                                    partialsType, dc);
}

poplar::Tensor distributedBatchNormGradients(
    poplar::Graph &replicatedGraph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
    const poplar::Tensor &mean, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
    poplar::program::Sequence &prog, poplin::DistributedNormReduceCallback reduceCallback,
    unsigned normBatchSize, const poplar::Type &partialsType,
    const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const auto l = layout("distributedBatchNormGradients");
  l.check(acts, "acts");
  checkNormBatchSize(l.fn, acts, "acts", normBatchSize, reduceCallback);
  const poplar::Tensor w =
      batchNormWhiten(replicatedGraph, acts, mean, invStdDev, prog, debugContext);
  return distributedBatchNormGradients(replicatedGraph, w, gradsIn, invStdDev, gamma, prog,
                                       std::move(reduceCallback), normBatchSize, partialsType,
                                       debugContext, options);
}

} // namespace popnn::bn
