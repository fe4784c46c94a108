// popnn::gn and popnn::ln: group normalisation through the shared NormCore (layer norm is one
// group).
#include <popnn/GroupNorm.hpp>
#include <popnn/LayerNorm.hpp>

#include <poputil/OptionParsing.hpp>

#include "NnChecks.hpp"
#include "NormCore.hpp"

namespace popnn {
namespace {

/// PopLibs documents "groupNormStridedChannelGrouping" with the default true.
bool stridedGrouping(const std::string &fn, const poplar::OptionFlags &options) {
  bool strided = true;
  poputil::OptionSpec(
      fn, {{"groupNormStridedChannelGrouping", poputil::OptionHandler::createWithBool(strided)}})
      .parse(options);
  return strided;
}

detail::NormLayout layout(const std::string &fn, unsigned groups,
                          const poplar::OptionFlags &options) {
  detail::NormLayout l;
  l.kind = detail::NormLayout::Kind::GROUP;
  l.fn = fn;
  l.groups = groups;
  // With one group both groupings are the same; the contiguous layout is the fast path (layer
  // norm is group norm with one group, so it must not pay for the strided view).
  l.strided = stridedGrouping(fn, options) && groups > 1;
  return l;
}

/// The group count implied by a [batch * numGroups] statistic.
unsigned groupsOf(const std::string &fn, const poplar::Tensor &acts, const poplar::Tensor &stat,
                  const char *statName) {
  // Empty acts with no samples: any group count fits, and every result is empty.
  if (acts.rank() >= 2 && acts.dim(0) == 0 && stat.rank() == 1 && stat.numElements() == 0)
    return 1;
  if (acts.rank() < 1 || acts.dim(0) == 0 || stat.rank() != 1 ||
      stat.numElements() % acts.dim(0) != 0)
    detail::fail(fn, statName, stat,
                 detail::cat("must be [batch * numGroups] for acts ", acts.shortString()));
  return static_cast<unsigned>(stat.numElements() / acts.dim(0));
}

using Pair = std::pair<poplar::Tensor, poplar::Tensor>;

Pair statistics(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &acts, float eps,
                poplar::program::Sequence &prog, unsigned numGroups, bool unbiased, bool stable,
                const poplar::DebugContext &dc, const poplar::OptionFlags &opts) {
  return detail::normStatistics(graph, layout(fn, numGroups, opts), acts, eps, unbiased, stable,
                                prog, dc);
}

poplar::Tensor whiten(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &acts,
                      const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                      poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                      const poplar::OptionFlags &opts) {
  return detail::normWhiten(graph, layout(fn, groupsOf(fn, acts, mean, "mean"), opts), acts, mean,
                            invStdDev, prog, dc);
}

Pair normalise(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &acts,
               const poplar::Tensor &gamma, const poplar::Tensor &beta, const poplar::Tensor &mean,
               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
               const poplar::DebugContext &dc, const poplar::OptionFlags &opts) {
  return detail::normalise(graph, layout(fn, groupsOf(fn, acts, mean, "mean"), opts), acts, gamma,
                           beta, mean, invStdDev, prog, dc);
}

Pair paramGradients(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &whitened,
                    const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                    const poplar::DebugContext &dc, const poplar::OptionFlags &opts) {
  return detail::normParamGradients(graph, layout(fn, 1, opts), whitened, gradsIn, prog, dc);
}

poplar::Tensor gradients(const std::string &fn, poplar::Graph &graph,
                         const poplar::Tensor &whitened, const poplar::Tensor &gradsIn,
                         const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                         const poplar::OptionFlags &opts) {
  return detail::normGradients(graph,
                               layout(fn, groupsOf(fn, whitened, invStdDev, "invStdDev"), opts),
                               whitened, gradsIn, invStdDev, gamma, prog, dc);
}

} // namespace

// ---- popnn::gn ------------------------------------------------------------------------------

namespace gn {

Pair groupNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                         poplar::program::Sequence &prog, unsigned numGroups,
                         bool unbiasedVarEstimate, bool stableAlgo, const poplar::Type &,
                         const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options) {
  return statistics("popnn::gn::groupNormStatistics", graph, acts, eps, prog, numGroups,
                    unbiasedVarEstimate, stableAlgo, {debugContext, "groupNormStatistics"},
                    options);
}

poplar::Tensor groupNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                               poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext,
                               const poplar::OptionFlags &options) {
  return whiten("popnn::gn::groupNormWhiten", graph, acts, mean, invStdDev, prog,
                {debugContext, "groupNormWhiten"}, options);
}

Pair groupNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
                    const poplar::Tensor &beta, const poplar::Tensor &mean,
                    const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return normalise("popnn::gn::groupNormalise", graph, acts, gamma, beta, mean, invStdDev, prog,
                   {debugContext, "groupNormalise"}, options);
}

Pair groupNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                             const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                             const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                             const poplar::Type &partialsType,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options) {
  const poplar::Tensor w = groupNormWhiten(graph, acts, mean, iStdDev, prog, debugContext, options);
  return groupNormParamGradients(graph, w, gradsIn, prog, partialsType, debugContext, options);
}

Pair groupNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                             const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                             const poplar::Type &, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options) {
  return paramGradients("popnn::gn::groupNormParamGradients", graph, actsWhitened, gradsIn, prog,
                        {debugContext, "groupNormParamGradients"}, options);
}

poplar::Tensor groupNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &partialsType,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options) {
  const poplar::Tensor w =
      groupNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
  return groupNormGradients(graph, w, gradsIn, invStdDev, gamma, prog, partialsType, debugContext,
                            options);
}

poplar::Tensor groupNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options) {
  return gradients("popnn::gn::groupNormGradients", graph, actsWhitened, gradsIn, invStdDev, gamma,
                   prog, {debugContext, "groupNormGradients"}, options);
}

void groupNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                          const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                          poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  detail::normParamUpdate(graph, "popnn::gn::groupNormParamUpdate", gammaDelta, betaDelta, scale,
                          gamma, beta, prog, {debugContext, "groupNormParamUpdate"});
}

void groupNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
          const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
          poplar::Tensor &beta, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  detail::normParamUpdate(graph, "popnn::gn::groupNormParamUpdate", gammaDelta, betaDelta, scale, gamma, beta,
                          prog, {debugContext, "groupNormParamUpdate"});
}

} // namespace gn

// ---- popnn::ln: one group ----------------------------------------------------------------------

namespace ln {

Pair layerNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                         poplar::program::Sequence &prog, bool unbiasedVarEstimate, bool stableAlgo,
                         const poplar::Type &, const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options) {
  return statistics("popnn::ln::layerNormStatistics", graph, acts, eps, prog, 1,
                    unbiasedVarEstimate, stableAlgo, {debugContext, "layerNormStatistics"},
                    options);
}

poplar::Tensor layerNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                               poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext,
                               const poplar::OptionFlags &options) {
  return whiten("popnn::ln::layerNormWhiten", graph, acts, mean, invStdDev, prog,
                {debugContext, "layerNormWhiten"}, options);
}

Pair layerNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
                    const poplar::Tensor &beta, const poplar::Tensor &mean,
                    const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return normalise("popnn::ln::layerNormalise", graph, acts, gamma, beta, mean, invStdDev, prog,
                   {debugContext, "layerNormalise"}, options);
}

Pair layerNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                             const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                             const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                             const poplar::Type &partialsType,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options) {
  const poplar::Tensor w = layerNormWhiten(graph, acts, mean, iStdDev, prog, debugContext, options);
  return layerNormParamGradients(graph, w, gradsIn, prog, partialsType, debugContext, options);
}

Pair layerNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                             const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                             const poplar::Type &, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options) {
  return paramGradients("popnn::ln::layerNormParamGradients", graph, actsWhitened, gradsIn, prog,
                        {debugContext, "layerNormParamGradients"}, options);
}

poplar::Tensor layerNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &partialsType,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options) {
  const poplar::Tensor w =
      layerNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
  return layerNormGradients(graph, w, gradsIn, invStdDev, gamma, prog, partialsType, debugContext,
                            options);
}

poplar::Tensor layerNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options) {
  return gradients("popnn::ln::layerNormGradients", graph, actsWhitened, gradsIn, invStdDev, gamma,
                   prog, {debugContext, "layerNormGradients"}, options);
}

void layerNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                          const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                          poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  detail::normParamUpdate(graph, "popnn::ln::layerNormParamUpdate", gammaDelta, betaDelta, scale,
                          gamma, beta, prog, {debugContext, "layerNormParamUpdate"});
}

void layerNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
          const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
          poplar::Tensor &beta, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  detail::normParamUpdate(graph, "popnn::ln::layerNormParamUpdate", gammaDelta, betaDelta, scale, gamma, beta,
                          prog, {debugContext, "layerNormParamUpdate"});
}

} // namespace ln
} // namespace popnn
