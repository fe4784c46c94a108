// Per-channel normalisation building blocks for activations [N][C][field…] (as convolutions
// and matrix products produce them): statistics over the batch and field of each channel,
// whitening, the affine step and their gradients. popnn's batch, group and layer norms are the
// user-facing layers; these are PopLibs' lower-level poplin functions.
//
// Every function is built from popops reductions and element-wise maps planned over the tiles.
// Shapes: acts, actsWhitened and gradsIn [N][C][field…] (rank ≥ 2, FLOAT or HALF); mean,
// iStdDev, gamma, beta [C]. Shape and type errors throw poputil::poplibs_error naming the tensor.
// `options` are passed to the element-wise operations (popops::map).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poplin {

/// A new per-channel scale gamma [C] of `type` for `acts`, spread over the tiles.
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Type &type,
                               const poplar::DebugContext &debugContext = {});
/// As above with acts' element type.
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext = {});

/// A new per-channel offset beta [C] of `type` for `acts`.
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Type &type,
                              const poplar::DebugContext &debugContext = {});
/// As above with acts' element type.
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext = {});

/// {gamma, beta} for `acts`.
std::pair<poplar::Tensor, poplar::Tensor>
createNormParams(poplar::Graph &graph, const poplar::Tensor &acts,
                 const poplar::DebugContext &debugContext = {});

/// {mean, iStdDev} [C] of acts' type: per channel c over the batch and field (count elements),
/// mean = Σx / count and iStdDev = 1 / sqrt(var + eps) with var = Σ(x − mean)² / count
/// (÷ (count − 1) when `unbiasedVarEstimate`). Sums are accumulated in `partialsType`;
/// `stableAlgo` subtracts the mean before squaring (else var = Σx²/count − mean²).
std::pair<poplar::Tensor, poplar::Tensor>
normStatistics(poplar::Graph &graph, const poplar::Tensor &actsUngrouped, float eps,
               poplar::program::Sequence &prog, bool unbiasedVarEstimate, bool stableAlgo = false,
               const poplar::Type &partialsType = poplar::FLOAT,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {});

/// Sums per-replica partial results across a group of `groupSize` adjacent replicas (a
/// reduce-add, e.g. built on gcl::allReduceCrossReplica) so that statistics over a batch split
/// between replicas equal those of the whole batch. Receives tensors of one replica's graph and
/// returns their sums, one per input in the same order and of the same shape, every replica in
/// the group getting the same values.
using DistributedNormReduceCallback = std::function<std::vector<poplar::Tensor>(
    poplar::Graph &replicatedGraph, const std::vector<poplar::Tensor> &inputsToReduce,
    poplar::program::Sequence &prog, unsigned groupSize, const poplar::DebugContext &debugContext,
    const poplar::OptionFlags &options)>;

/// normStatistics over `normSize` batch elements of which each replica holds
/// actsUngrouped.dim(0): every replica scales its per-channel sums by 1 / (normSize · field) and
/// `allReduceCallback` sums them over the normSize / dim(0) replicas (the mean and the mean square
/// together; with `stableAlgo` the mean first, then the centred mean square). The callback is
/// only called when normSize exceeds the replica batch (else these are local statistics);
/// normSize must then be a whole multiple of it (poputil::poplibs_error naming normSize).
std::pair<poplar::Tensor, poplar::Tensor>
distributedNormStatistics(poplar::Graph &replicatedGraph, const poplar::Tensor &actsUngrouped,
                          float eps, poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                          DistributedNormReduceCallback allReduceCallback, unsigned normSize,
                          bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                          const poplar::DebugContext &debugContext = {});

/// (acts − mean[c]) · iStdDev[c].
poplar::Tensor normWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                          const poplar::Tensor &mean, const poplar::Tensor &iStdDev,
                          poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

/// actsWhitened · gamma[c] + beta[c].
poplar::Tensor normalise(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                         const poplar::Tensor &gamma, const poplar::Tensor &beta,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {},
                         const poplar::OptionFlags &options = {});

/// {d gamma, d beta} [C]: Σ gradsIn · actsWhitened and Σ gradsIn per channel over the batch and
/// field, accumulated in `partialsType`, returned in gradsIn's type.
std::pair<poplar::Tensor, poplar::Tensor> normParamGradients(
    poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
    poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

/// The gradient through the affine step: gradsIn · gamma[c].
poplar::Tensor normGradients(poplar::Graph &graph, const poplar::Tensor &gradsIn,
                             const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {});

/// The gradient through the whitening (with the statistics' own dependence on the input):
/// iStdDev[c] · (gradsIn − mean_c(gradsIn) − actsWhitened · mean_c(gradsIn · actsWhitened)),
/// means over the batch and field of channel c.
poplar::Tensor normStatisticsGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                       const poplar::Tensor &gradsIn,
                                       const poplar::Tensor &invStdDev,
                                       poplar::program::Sequence &prog,
                                       const poplar::Type &partialsType = poplar::FLOAT,
                                       const poplar::DebugContext &debugContext = {},
                                       const poplar::OptionFlags &options = {});

/// normStatisticsGradients over `normSize` batch elements spread over replicas as for
/// distributedNormStatistics: the per-channel means of gradsIn and gradsIn · actsWhitened are
/// summed across the replica group by `reduceCallback` before the gradient is formed.
poplar::Tensor distributedNormStatisticsGradients(
    poplar::Graph &replicatedGraph, const poplar::Tensor &actsWhitened,
    const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
    DistributedNormReduceCallback reduceCallback, unsigned normSize,
    const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {});

} // namespace poplin
