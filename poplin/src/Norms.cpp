// poplin's per-channel normalisation blocks from popops reductions over {batch, field…} and
// element-wise maps with the per-channel vectors broadcast as [1][C][1…] views.
#include <poplin/Norms.hpp>

#include <vector>

#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <poputil/Broadcast.hpp>
#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

namespace pe = popops::expr;

namespace poplin {
namespace {

[[noreturn]] void fail(const std::string &fn, const std::string &what) {
  throw poputil::poplibs_error("poplin::" + fn + ": " + what);
}

std::string nameOf(const poplar::DebugContext &dc, const std::string &fallback) {
  return dc.getPathName().empty() ? fallback : dc.getPathName();
}

/// Checks an activations-shaped tensor: [N][C][field…], FLOAT or HALF.
void checkActs(const std::string &fn, const std::string &what, const poplar::Tensor &t) {
  if (t.rank() < 2)
    fail(fn, what + " must have shape [N][C][field...] but has shape " +
                 poputil::shapeString(t.shape()));
  if (t.elementType() != poplar::FLOAT && t.elementType() != poplar::HALF)
    fail(fn, what + " has type " + t.elementType().toString() + "; expected float or half");
}

/// Checks a per-channel vector [C] for acts.
void checkChannelVector(const std::string &fn, const std::string &what, const poplar::Tensor &v,
                        const poplar::Tensor &acts) {
  if (v.rank() != 1 || v.dim(0) != acts.dim(1))
    fail(fn, what + " must have shape [" + std::to_string(acts.dim(1)) +
                 "] (one value per channel of " + poputil::shapeString(acts.shape()) +
                 ") but has shape " + poputil::shapeString(v.shape()));
}

void checkSameShape(const std::string &fn, const std::string &what, const poplar::Tensor &t,
                    const poplar::Tensor &acts) {
  if (t.shape() != acts.shape())
    fail(fn, what + " has shape " + poputil::shapeString(t.shape()) + " but must match " +
                 poputil::shapeString(acts.shape()));
}

/// The dimensions statistics reduce over: batch and field.
std::vector<std::size_t> statDims(const poplar::Tensor &acts) {
  std::vector<std::size_t> dims{0};
  for (std::size_t d = 2; d < acts.rank(); ++d)
    dims.push_back(d);
  return dims;
}

std::size_t statCount(const poplar::Tensor &acts) {
  return acts.dim(1) ? acts.numElements() / acts.dim(1) : 0;
}

/// A [C] vector as a view broadcast to acts' shape.
poplar::Tensor broadcastChannel(poplar::Tensor v, const poplar::Tensor &acts) {
  std::vector<std::size_t> shape(acts.rank(), 1);
  shape[1] = v.dim(0);
  v = v.reshape(shape);
  poputil::broadcastToMatch(v, acts.shape());
  return v;
}

poplar::Tensor channelVector(poplar::Graph &graph, const poplar::Tensor &acts,
                             const poplar::Type &type, const std::string &name) {
  checkActs("createNormParams", "acts", acts);
  poplar::Tensor t = graph.addVariable(type, {acts.dim(1)}, name);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

poplar::Tensor castTo(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Type &type,
                      poplar::program::Sequence &prog, const std::string &name) {
  return t.elementType() == type ? t : popops::cast(graph, t, type, prog, name);
}

} // namespace

poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Type &type, const poplar::DebugContext &debugContext) {
  return channelVector(graph, acts, type, nameOf(debugContext, "gamma"));
}
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext) {
  return createNormGamma(graph, acts, acts.elementType(), debugContext);
}
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Type &type, const poplar::DebugContext &debugContext) {
  return channelVector(graph, acts, type, nameOf(debugContext, "beta"));
}
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext) {
  return createNormBeta(graph, acts, acts.elementType(), debugContext);
}
std::pair<poplar::Tensor, poplar::Tensor>
createNormParams(poplar::Graph &graph, const poplar::Tensor &acts,
                 const poplar::DebugContext &debugContext) {
  const std::string name = nameOf(debugContext, "norm");
  return {createNormGamma(graph, acts, name + "/gamma"),
          createNormBeta(graph, acts, name + "/beta")};
}

namespace {

/// Whether the partial statistics are summed across replicas: only when the norm spans more
/// batch elements than this replica holds and a callback is given. Throws when normSize is not a
/// whole number of replica batches.
bool reducesAcrossReplicas(const std::string &fn, std::size_t replicaBatch, unsigned normSize,
                           const DistributedNormReduceCallback &callback) {
  const bool across = callback != nullptr && replicaBatch > 0 && normSize > replicaBatch;
  if (across && normSize % replicaBatch != 0)
    fail(fn, "normSize " + std::to_string(normSize) +
                 " must be a whole multiple of the replica batch size " +
                 std::to_string(replicaBatch) + " (dimension 0 of the activations)");
  return across;
}

/// Runs the callback on `partials` and checks it returned one tensor of the same shape for each.
std::vector<poplar::Tensor>
reduceAcrossReplicas(const std::string &fn, const DistributedNormReduceCallback &callback,
                     poplar::Graph &graph, const std::vector<poplar::Tensor> &partials,
                     poplar::program::Sequence &prog, unsigned groupSize, const std::string &name) {
  std::vector<poplar::Tensor> reduced = callback(graph, partials, prog, groupSize, name, {});
  if (reduced.size() != partials.size())
    fail(fn, "the reduce callback returned " + std::to_string(reduced.size()) + " tensors for " +
                 std::to_string(partials.size()) + " inputs");
  for (std::size_t i = 0; i < partials.size(); ++i)
    if (reduced[i].shape() != partials[i].shape())
      fail(fn, "the reduce callback returned tensor " + std::to_string(i) + " of shape " +
                   poputil::shapeString(reduced[i].shape()) + " for an input of shape " +
                   poputil::shapeString(partials[i].shape()));
  return reduced;
}

/// The statistics of normStatistics; with a callback and normSize above the replica batch, the
/// scaled partial sums of every replica in the group are summed by the callback first.
std::pair<poplar::Tensor, poplar::Tensor>
statisticsImpl(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &acts, float eps,
               poplar::program::Sequence &prog, bool unbiasedVarEstimate, bool stableAlgo,
               const poplar::Type &partialsType, const DistributedNormReduceCallback &callback,
               unsigned normSize, const std::string &name, const poplar::OptionFlags &options) {
  checkActs(fn, "actsUngrouped", acts);
  if (partialsType != poplar::FLOAT && partialsType != poplar::HALF)
    fail(fn, "partialsType is " + partialsType.toString() + "; expected float or half");
  const bool across = reducesAcrossReplicas(fn, acts.dim(0), normSize, callback);
  const unsigned groupSize = across ? unsigned(normSize / acts.dim(0)) : 1u;
  const std::size_t count = statCount(acts) * groupSize;
  if (count == 0)
    fail(fn, "actsUngrouped " + poputil::shapeString(acts.shape()) +
                 " has no elements per channel to take statistics over");
  if (unbiasedVarEstimate && count < 2)
    fail(fn, "an unbiased variance needs at least 2 elements per channel; actsUngrouped " +
                 poputil::shapeString(acts.shape()) + " has 1");
  const auto dims = statDims(acts);
  const float inv = 1.0f / float(count);
  const float varScale = unbiasedVarEstimate ? float(count) / float(count - 1) : 1.0f;
  auto acrossReplicas = [&](std::vector<poplar::Tensor> partials, const std::string &what) {
    return across ? reduceAcrossReplicas(fn, callback, graph, partials, prog, groupSize,
                                         name + "/" + what)
                  : partials;
  };

  poplar::Tensor sum =
      popops::reduce(graph, acts, partialsType, dims, popops::Operation::ADD, prog, name + "/sum");
  poplar::Tensor mean =
      popops::map(graph, pe::_1 * pe::Const(inv), {sum}, prog, name + "/mean", options);
  poplar::Tensor var;
  if (stableAlgo) {
    mean = acrossReplicas({mean}, "mean")[0];
    poplar::Tensor centred =
        popops::map(graph, pe::Cast(pe::_1, partialsType) - pe::_2,
                    {acts, broadcastChannel(mean, acts)}, prog, name + "/centre", options);
    poplar::Tensor squares = popops::reduce(graph, centred, partialsType, dims,
                                            popops::Operation::SQUARE_ADD, prog, name + "/squares");
    if (across) {
      poplar::Tensor power =
          popops::map(graph, pe::_1 * pe::Const(inv), {squares}, prog, name + "/power", options);
      power = acrossReplicas({power}, "power")[0];
      var = popops::map(graph, pe::_1 * pe::Const(varScale), {power}, prog, name + "/var", options);
    } else {
      var = popops::map(graph, pe::_1 * pe::Const(inv * varScale), {squares}, prog, name + "/var",
                        options);
    }
  } else {
    poplar::Tensor squares = popops::reduce(graph, acts, partialsType, dims,
                                            popops::Operation::SQUARE_ADD, prog, name + "/squares");
    poplar::Tensor power =
        popops::map(graph, pe::_1 * pe::Const(inv), {squares}, prog, name + "/power", options);
    auto reduced = acrossReplicas({mean, power}, "meanAndPower");
    mean = reduced[0];
    var = popops::map(graph, (pe::_1 - pe::_2 * pe::_2) * pe::Const(varScale), {reduced[1], mean},
                      prog, name + "/var", options);
  }
  poplar::Tensor iStdDev = popops::map(graph, pe::Rsqrt(pe::_1 + pe::Const(eps)), {var}, prog,
                                       name + "/iStdDev", options);
  return {castTo(graph, mean, acts.elementType(), prog, name + "/castMean"),
          castTo(graph, iStdDev, acts.elementType(), prog, name + "/castIStdDev")};
}

/// The gradient of normStatisticsGradients; the two per-channel means it needs are summed across
/// the replica group by the callback when the norm spans more than this replica's batch.
poplar::Tensor statisticsGradientsImpl(
    const std::string &fn, poplar::Graph &graph, const poplar::Tensor &actsWhitened,
    const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
    const poplar::Type &partialsType, const DistributedNormReduceCallback &callback,
    unsigned normSize, const std::string &name, const poplar::OptionFlags &options) {
  checkActs(fn, "actsWhitened", actsWhitened);
  checkActs(fn, "gradsIn", gradsIn);
  checkSameShape(fn, "gradsIn", gradsIn, actsWhitened);
  checkChannelVector(fn, "invStdDev", invStdDev, actsWhitened);
  const bool across = reducesAcrossReplicas(fn, actsWhitened.dim(0), normSize, callback);
  const unsigned groupSize = across ? unsigned(normSize / actsWhitened.dim(0)) : 1u;
  const std::size_t count = statCount(actsWhitened) * groupSize;
  if (count == 0)
    fail(fn, "actsWhitened " + poputil::shapeString(actsWhitened.shape()) +
                 " has no elements per channel");
  const auto dims = statDims(actsWhitened);
  const float inv = 1.0f / float(count);
  poplar::Tensor products =
      popops::map(graph, pe::Cast(pe::_1, partialsType) * pe::Cast(pe::_2, partialsType),
                  {gradsIn, actsWhitened}, prog, name + "/products", options);
  poplar::Tensor meanProduct =
      popops::map(graph, pe::_1 * pe::Const(inv),
                  {popops::reduce(graph, products, partialsType, dims, popops::Operation::ADD, prog,
                                  name + "/sumProducts")},
                  prog, name + "/meanProducts", options);
  poplar::Tensor meanGrad =
      popops::map(graph, pe::_1 * pe::Const(inv),
                  {popops::reduce(graph, gradsIn, partialsType, dims, popops::Operation::ADD, prog,
                                  name + "/sumGrads")},
                  prog, name + "/meanGrads", options);
  if (across) {
    auto reduced = reduceAcrossReplicas(fn, callback, graph, {meanProduct, meanGrad}, prog,
                                        groupSize, name + "/meanProductsAndGrads");
    meanProduct = reduced[0];
    meanGrad = reduced[1];
  }
  const poplar::Type t = gradsIn.elementType();
  const auto p = partialsType;
  return popops::map(
      graph,
      pe::Cast((pe::Cast(pe::_1, p) - pe::_3 - pe::Cast(pe::_2, p) * pe::_4) * pe::Cast(pe::_5, p),
               t),
      {gradsIn, actsWhitened, broadcastChannel(meanGrad, actsWhitened),
       broadcastChannel(meanProduct, actsWhitened), broadcastChannel(invStdDev, actsWhitened)},
      prog, name, options);
}

} // namespace

std::pair<poplar::Tensor, poplar::Tensor>
normStatistics(poplar::Graph &graph, const poplar::Tensor &acts, float eps,
               poplar::program::Sequence &prog, bool unbiasedVarEstimate, bool stableAlgo,
               const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options) {
  return statisticsImpl("normStatistics", graph, acts, eps, prog, unbiasedVarEstimate, stableAlgo,
                        partialsType, nullptr, 0, nameOf(debugContext, "normStatistics"), options);
}

std::pair<poplar::Tensor, poplar::Tensor>
distributedNormStatistics(poplar::Graph &replicatedGraph, const poplar::Tensor &actsUngrouped,
                          float eps, poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                          DistributedNormReduceCallback allReduceCallback, unsigned normSize,
                          bool stableAlgo, const poplar::Type &partialsType,
                          const poplar::DebugContext &debugContext) {
  return statisticsImpl("distributedNormStatistics", replicatedGraph, actsUngrouped, eps, prog,
                        unbiasedVarEstimate, stableAlgo, partialsType, allReduceCallback, normSize,
                        nameOf(debugContext, "distributedNormStatistics"), {});
}

poplar::Tensor normWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                          const poplar::Tensor &mean, const poplar::Tensor &iStdDev,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  const std::string fn = "normWhiten";
  checkActs(fn, "acts", acts);
  checkChannelVector(fn, "mean", mean, acts);
  checkChannelVector(fn, "iStdDev", iStdDev, acts);
  const poplar::Type t = acts.elementType();
  return popops::map(graph, (pe::_1 - pe::Cast(pe::_2, t)) * pe::Cast(pe::_3, t),
                     {acts, broadcastChannel(mean, acts), broadcastChannel(iStdDev, acts)}, prog,
                     nameOf(debugContext, "normWhiten"), options);
}

poplar::Tensor normalise(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                         const poplar::Tensor &gamma, const poplar::Tensor &beta,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options) {
  const std::string fn = "normalise";
  checkActs(fn, "actsWhitened", actsWhitened);
  checkChannelVector(fn, "gamma", gamma, actsWhitened);
  checkChannelVector(fn, "beta", beta, actsWhitened);
  const poplar::Type t = actsWhitened.elementType();
  return popops::map(
      graph, pe::_1 * pe::Cast(pe::_2, t) + pe::Cast(pe::_3, t),
      {actsWhitened, broadcastChannel(gamma, actsWhitened), broadcastChannel(beta, actsWhitened)},
      prog, nameOf(debugContext, "normalise"), options);
}

std::pair<poplar::Tensor, poplar::Tensor>
normParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                   const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                   const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options) {
  const std::string fn = "normParamGradients";
  checkActs(fn, "actsWhitened", actsWhitened);
  checkActs(fn, "gradsIn", gradsIn);
  checkSameShape(fn, "gradsIn", gradsIn, actsWhitened);
  const std::string name = nameOf(debugContext, "normParamGradients");
  const auto dims = statDims(actsWhitened);
  poplar::Tensor products =
      popops::map(graph, pe::Cast(pe::_1, partialsType) * pe::Cast(pe::_2, partialsType),
                  {gradsIn, actsWhitened}, prog, name + "/products", options);
  poplar::Tensor dGamma = popops::reduce(graph, products, gradsIn.elementType(), dims,
                                         popops::Operation::ADD, prog, name + "/deltaGamma");
  poplar::Tensor dBeta = popops::reduce(graph, gradsIn, gradsIn.elementType(), dims,
                                        popops::Operation::ADD, prog, name + "/deltaBeta");
  return {dGamma, dBeta};
}

poplar::Tensor normGradients(poplar::Graph &graph, const poplar::Tensor &gradsIn,
                             const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options) {
  const std::string fn = "normGradients";
  checkActs(fn, "gradsIn", gradsIn);
  checkChannelVector(fn, "gamma", gamma, gradsIn);
  return popops::map(graph, pe::_1 * pe::Cast(pe::_2, gradsIn.elementType()),
                     {gradsIn, broadcastChannel(gamma, gradsIn)}, prog,
                     nameOf(debugContext, "normGradients"), options);
}

poplar::Tensor normStatisticsGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                       const poplar::Tensor &gradsIn,
                                       const poplar::Tensor &invStdDev,
                                       poplar::program::Sequence &prog,
                                       const poplar::Type &partialsType,
                                       const poplar::DebugContext &debugContext,
                                       const poplar::OptionFlags &options) {
  return statisticsGradientsImpl("normStatisticsGradients", graph, actsWhitened, gradsIn, invStdDev,
                                 prog, partialsType, nullptr, 0,
                                 nameOf(debugContext, "normStatisticsGradients"), options);
}

poplar::Tensor distributedNormStatisticsGradients(
    poplar::Graph &replicatedGraph, const poplar::Tensor &actsWhitened,
    const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
    DistributedNormReduceCallback reduceCallback, unsigned normSize,
    const poplar::Type &partialsType, const poplar::DebugContext &debugContext) {
  return statisticsGradientsImpl("distributedNormStatisticsGradients", replicatedGraph,
                                 actsWhitened, gradsIn, invStdDev, prog, partialsType,
                                 reduceCallback, normSize,
                                 nameOf(debugContext, "distributedNormStatisticsGradients"), {});
}

} // namespace poplin
