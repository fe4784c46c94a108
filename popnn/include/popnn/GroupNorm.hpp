// Group normalisation of [batch][channels][field…] activations (rank >= 2): statistics per
// sample and group of channels over the group's channels and the field.
//
// Channel c belongs to group c % numGroups (strided groups; option
// "groupNormStridedChannelGrouping", default "true" as in PopLibs), or, with
// {"groupNormStridedChannelGrouping", "false"}, to group c / (channels / numGroups) (contiguous
// groups, the conventional grouping of PyTorch and TensorFlow). Pass the same options to every
// gn:: call of a layer. numGroups == channels is instance norm; numGroups == 1 is layer norm over
// all channels and field. mean and invStdDev are [batch * numGroups] (sample-major). Everything
// else as popnn/BatchNorm.hpp; gamma and beta are [channels].
#pragma once

#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {
namespace gn {

/// Throws poputil::poplibs_error naming acts if numGroups is 0 or does not divide channels.
std::pair<poplar::Tensor, poplar::Tensor>
groupNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                    poplar::program::Sequence &prog, unsigned numGroups, bool unbiasedVarEstimate,
                    bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                    const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &options = {});

poplar::Tensor groupNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                               poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {});

/// Returns (gamma * whitened + beta, whitened).
std::pair<poplar::Tensor, poplar::Tensor>
groupNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
               const poplar::Tensor &beta, const poplar::Tensor &mean,
               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {});

std::pair<poplar::Tensor, poplar::Tensor> groupNormParamGradients(
    poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
    const poplar::Tensor &mean, const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
    const poplar::Type &partialsType = poplar::FLOAT, const poplar::DebugContext &debugContext = {},
    const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor> groupNormParamGradients(
    poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
    poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

poplar::Tensor groupNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
poplar::Tensor groupNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});

void groupNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                          const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                          poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

/// As above with the scale held in a one-element FLOAT or HALF tensor (so a learning-rate
/// schedule can change it between runs without recompiling).
void groupNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
          const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
          poplar::Tensor &beta, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext = {},
          const poplar::OptionFlags &options = {});

} // namespace gn
} // namespace popnn
