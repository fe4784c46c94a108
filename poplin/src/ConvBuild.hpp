// Building a planned convolution pass into a graph: tensor layouts and compute sets.
#pragma once

#include <optional>
#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>

#include "ConvPlan.hpp"

namespace poplin::detail {

enum class ConvOperand { Input, Weights, Output };

/// A new tensor of the operand's logical shape ([B][C][fields…], [G][OC][IC][kernel…] or
/// [B][OC][out fields…]) of `type`, laid out channel-major in memory ([C][B][fields…]) for
/// activations, with each block on the tile that computes on (or reduces into) it.
poplar::Tensor createConvTensor(poplar::Graph &graph, const ConvPlan &plan,
                                const ConvParams &params, ConvOperand which,
                                const poplar::Type &type, const std::string &name);

/// out = conv(in, weights) for the forward plan; `weights` is a [G][OC][IC][kernel…] view.
void buildConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                      const poplar::Tensor &in, const poplar::Tensor &weights,
                      const poplar::Tensor &out, poplar::program::Sequence &prog,
                      const std::string &name);

/// out = conv(in, weights) for a plan of a product method (not BLOCKS). With
/// `weightsTransposed`, `weights` is stored [G][IC][OC][kernel…] (the convolution's
/// transposeAndFlipWeights form), which each method reads as stored.
void buildProductConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                             const poplar::Tensor &in, const poplar::Tensor &weights,
                             bool weightsTransposed, const poplar::Tensor &out,
                             poplar::program::Sequence &prog, const std::string &name);

/// dW = ∂loss/∂weights, or dW += scale · ∂loss/∂weights with `scale`, for the
/// weight-gradient plan of the forward `params`.
void buildWeightGradient(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                         const poplar::Tensor &zDeltas, const poplar::Tensor &activations,
                         const poplar::Tensor &dW, std::optional<float> scale,
                         poplar::program::Sequence &prog, const std::string &name);

} // namespace poplin::detail
