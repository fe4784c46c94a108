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

#include <string>
#include <utility>

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

} // namespace poplin
