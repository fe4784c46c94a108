// What every normalisation layer (popnn/BatchNorm.hpp, GroupNorm.hpp, LayerNorm.hpp,
// InstanceNorm.hpp) shares: creating its per-channel parameters gamma and beta, and counting the
// floating-point operations of its passes.
//
// Activations are [batch][channels][field…] (rank >= 2); gamma and beta are [channels], mapped
// linearly over the tiles. Errors (rank < 2, a type other than FLOAT or HALF) throw
// poputil::poplibs_error naming the argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

/// Flops of a norm layer's forward pass over numActsElements activations with statisticsSize
/// statistics: 6 per activation and 5 per statistic when the statistics are computed, else
/// (inference with combined running statistics) 2 per activation.
std::uint64_t getNormFwdFlops(std::size_t statisticsSize, std::size_t numActsElements,
                              bool computeStats = true);

/// Flops of the gradient with respect to the activations: 8 per activation, 2 per statistic.
std::uint64_t getNormBwdFlops(std::size_t statisticsSize, std::size_t numActsElements);

/// Flops of the parameter gradients and update: 3 per activation, 4 per parameter.
std::uint64_t getNormWuFlops(std::size_t paramsSize, std::size_t numActsElements);

/// A new [channels] gamma of element type `type` for `acts`, mapped linearly.
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::Type &type,
                               const poplar::DebugContext &debugContext = {});
/// As above, in acts' element type.
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext = {});

/// A new [channels] beta of element type `type` for `acts`, mapped linearly.
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Type &type,
                              const poplar::DebugContext &debugContext = {});
/// As above, in acts' element type.
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext = {});

/// (gamma, beta) for `acts`, in acts' element type.
std::pair<poplar::Tensor, poplar::Tensor>
createNormParams(poplar::Graph &graph, const poplar::Tensor &acts,
                 const poplar::DebugContext &debugContext = {});

} // namespace popnn
