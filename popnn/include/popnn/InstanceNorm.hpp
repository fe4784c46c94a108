// Instance normalisation of [batch][channels][field…] activations (rank >= 2): statistics per
// sample and channel over the field. It is group normalisation with one group per channel, so
// every function here forwards to popnn/GroupNorm.hpp with numGroups = channels (the strided and
// contiguous groupings coincide then); mean and invStdDev are [batch * channels], sample-major;
// gamma and beta are [channels]. Everything else as popnn/GroupNorm.hpp.
#pragma once

#include <cstdint>
#include <utility>

#include <popnn/GroupNorm.hpp>

namespace popnn {
namespace in {

/// Mean and inverse standard deviation of acts per (sample, channel).
inline std::pair<poplar::Tensor, poplar::Tensor>
instanceNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                       poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                       bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                       const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormStatistics(graph, acts, eps, prog,
                                        static_cast<unsigned>(acts.dim(1)), unbiasedVarEstimate,
                                        stableAlgo, partialsType, debugContext, options);
}

/// (acts - mean) * invStdDev, in acts' type.
inline poplar::Tensor instanceNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                                         const poplar::Tensor &mean,
                                         const poplar::Tensor &invStdDev,
                                         poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
}

/// Returns (gamma * whitened + beta, whitened).
inline std::pair<poplar::Tensor, poplar::Tensor>
instanceNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
                  const poplar::Tensor &beta, const poplar::Tensor &mean,
                  const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debugContext = {},
                  const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormalise(graph, acts, gamma, beta, mean, invStdDev, prog, debugContext,
                                   options);
}

/// (gammaDelta, betaDelta) from the forward input and its statistics.
inline std::pair<poplar::Tensor, poplar::Tensor> instanceNormParamGradients(
    poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
    const poplar::Tensor &mean, const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
    const poplar::Type &partialsType = poplar::FLOAT, const poplar::DebugContext &debugContext = {},
    const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormParamGradients(graph, acts, gradsIn, mean, iStdDev, prog,
                                            partialsType, debugContext, options);
}

/// (gammaDelta, betaDelta) from the whitened activations.
inline std::pair<poplar::Tensor, poplar::Tensor> instanceNormParamGradients(
    poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
    poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormParamGradients(graph, actsWhitened, gradsIn, prog, partialsType,
                                            debugContext, options);
}

/// Gradient with respect to acts through the whole layer, statistics included.
inline poplar::Tensor
instanceNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                      const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                      const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                      poplar::program::Sequence &prog,
                      const poplar::Type &partialsType = poplar::FLOAT,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormGradients(graph, acts, gradsIn, mean, invStdDev, gamma, prog,
                                       partialsType, debugContext, options);
}

/// As above, from the whitened activations.
inline poplar::Tensor
instanceNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                      const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                      const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                      const poplar::Type &partialsType = poplar::FLOAT,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}) {
  return popnn::gn::groupNormGradients(graph, actsWhitened, gradsIn, invStdDev, gamma, prog,
                                       partialsType, debugContext, options);
}

/// gamma += scale * gammaDelta; beta += scale * betaDelta.
inline void instanceNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                                    const poplar::Tensor &betaDelta, float scale,
                                    poplar::Tensor &gamma, poplar::Tensor &beta,
                                    poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {}) {
  popnn::gn::groupNormParamUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog,
                                  debugContext, options);
}

/// As above with the scale held in a one-element tensor (so it can change between runs).
inline void instanceNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                                    const poplar::Tensor &betaDelta, const poplar::Tensor &scale,
                                    poplar::Tensor &gamma, poplar::Tensor &beta,
                                    poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {}) {
  popnn::gn::groupNormParamUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog,
                                  debugContext, options);
}

/// Flops of the forward pass: numChannels statistics over actsPerChannel activations each
/// (batch * field for convolutional layers); computeEstimates says the statistics are computed.
std::uint64_t getFwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel,
                          bool computeEstimates);
/// Flops of the gradient with respect to the activations.
std::uint64_t getBwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel);
/// Flops of the parameter gradients and update.
std::uint64_t getWuFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel);

} // namespace in
} // namespace popnn
