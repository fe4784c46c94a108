// Batch normalisation of [batch][channels][field…] activations (rank >= 2): statistics per
// channel over the batch and field dimensions, forward, input and parameter gradients.
//
// Statistics: mean, and invStdDev = 1 / sqrt(var + eps) with var the biased (or, with
// unbiasedVarEstimate, the n/(n-1)-corrected) variance; both FLOAT-or-partialsType [channels].
// The one-pass form (E[x^2] - E[x]^2, clamped at 0) is used unless stableAlgo, which subtracts
// the mean first. Gradients assume biased statistics, as training does. For inference pass the
// running mean and invStdDev to batchNormalise (or fold them into combinedMultiplicand/addend).
// FLOAT and HALF activations; errors (rank < 2, mismatched shapes, other types) throw
// poputil::poplibs_error naming the tensor.
//
// Cost with FLOAT activations (each pass is one compute set over the tiles holding the data;
// sums then take a small fixed-order reduction across tiles): statistics read acts once
// (stableAlgo: twice, plus a centred copy); batchNormalise reads acts once and writes both
// results; batchNormParamGradients reads gradsIn and actsWhitened once; batchNormGradients does
// that same read plus one pass writing the result. No full-size temporaries. Results are
// bit-identical for any host-thread count.
#pragma once

#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/Norms.hpp>

namespace popnn {
namespace bn {

/// Mean and inverse standard deviation of `acts` per channel (dimension 1).
std::pair<poplar::Tensor, poplar::Tensor>
batchNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                    poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                    bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                    const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &options = {});

/// batchNormStatistics over `normBatchSize` batch elements spread evenly over replicas, each
/// holding acts.dim(0) of them: `reduceCallback` sums the per-replica partial statistics over
/// the normBatchSize / acts.dim(0) replicas of a group (see poplin::distributedNormStatistics).
/// Mean and invStdDev come back in acts' type. normBatchSize must be a whole multiple of
/// acts.dim(0) when it exceeds it (poputil::poplibs_error naming normBatchSize).
std::pair<poplar::Tensor, poplar::Tensor> distributedBatchNormStatistics(
    poplar::Graph &replicatedGraph, const poplar::Tensor acts, float eps,
    poplar::program::Sequence &prog, bool unbiasedVarEstimate,
    poplin::DistributedNormReduceCallback reduceCallback, unsigned normBatchSize,
    bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

/// (acts - mean) * invStdDev, in acts' type.
poplar::Tensor batchNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                               poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {});

/// Returns (gamma * whitened + beta, whitened); gamma and beta are [channels].
std::pair<poplar::Tensor, poplar::Tensor>
batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
               const poplar::Tensor &beta, const poplar::Tensor &mean,
               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {});

/// Inference form: acts * combinedMultiplicand + addend, where combinedMultiplicand =
/// gamma * invStdDev and addend = beta - gamma * mean * invStdDev ([channels] each).
poplar::Tensor batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Tensor &combinedMultiplicand,
                              const poplar::Tensor &addend, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {},
                              const poplar::OptionFlags &options = {});

/// (gammaDelta, betaDelta): sums over batch and field of gradsIn * whitened and of gradsIn.
std::pair<poplar::Tensor, poplar::Tensor> batchNormParamGradients(
    poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
    const poplar::Tensor &mean, const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
    const poplar::Type &partialsType = poplar::FLOAT, const poplar::DebugContext &debugContext = {},
    const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor> batchNormParamGradients(
    poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
    poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

/// Gradient with respect to acts through the whole layer (statistics included):
/// invStdDev * (g - mean(g) - whitened * mean(g * whitened)) with g = gradsIn * gamma.
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});

/// batchNormGradients for a batch of `normBatchSize` elements spread over replicas as for
/// distributedBatchNormStatistics: the per-channel means the gradient needs are summed across
/// the replica group by `reduceCallback`, so each replica gets its slice of the whole batch's
/// input gradient.
poplar::Tensor distributedBatchNormGradients(
    poplar::Graph &replicatedGraph, const poplar::Tensor &actsWhitened,
    const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
    poplar::program::Sequence &prog, poplin::DistributedNormReduceCallback reduceCallback,
    unsigned normBatchSize, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
/// As above from the un-whitened acts and their (whole-batch) mean and invStdDev.
poplar::Tensor distributedBatchNormGradients(
    poplar::Graph &replicatedGraph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
    const poplar::Tensor &mean, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
    poplar::program::Sequence &prog, poplin::DistributedNormReduceCallback reduceCallback,
    unsigned normBatchSize, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

/// gamma += scale * gammaDelta; beta += scale * betaDelta (scale is negative for descent).
void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                          const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                          poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

/// As above with the scale held in a one-element FLOAT or HALF tensor (so a learning-rate
/// schedule can change it between runs without recompiling).
void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
          const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
          poplar::Tensor &beta, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext = {},
          const poplar::OptionFlags &options = {});

} // namespace bn
} // namespace popnn
