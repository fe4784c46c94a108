// Dense 3x3 stride-1 convolutions by Winograd's F(2x2, 3x3) algorithm: each 2x2 block of
// outputs ("tile" here, not an IPU tile) comes from the 4x4 input patch under it through 16
// element-wise products in a transformed space (codelets/poplin/WinogradVertices.cpp), and the
// channel sums of those products are 16 independent matrix products per group — 16 multiplies
// per 4 outputs where the direct method needs 36, all in matMul's planned GEMM kernels.
//
// With T = batch × tilesY × tilesX and 16·G product groups (index g·16 + element):
//   forward           M[e] (OC × T)  = U[e] (OC × IC) · V[e] (IC × T)
//                     U = kernel transform of the weights, V = input transform, out = Aᵀ M A
//   input gradient    the same with the stored weights' transform given transposed
//                     (transposeAndFlipWeights: U'[e] = U[e]ᵀ of the flipped kernels)
//   weight gradient   dU[e] (OC × IC) = dM[e] (OC × T) · V[e]ᵀ,  dM = A dOut Aᵀ, dW = Gᵀ dU G
// The weight gradient is the adjoint of the forward computation, exact up to rounding.
// Activations keep their logical shape [B][G·C][H][W] over a channel-major layout, so each
// transform vertex reads or writes whole (channel, batch) planes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>
#include <poplin/MatMulPlan.hpp>

#include "ConvBuild.hpp"
#include "ConvOptions.hpp"
#include "ConvPlan.hpp"

namespace poplin::detail {

/// Whether F(2x2, 3x3) computes `params`: a 2-D FLOAT convolution with a 3x3 kernel (flips
/// allowed), stride 1, zero padding of the input (less any output truncation), no dilation or
/// input truncation, and a non-empty output.
bool winogradApplies(const ConvParams &params);

/// The product of the pass: forward (and input gradient) 16·G groups of OC × IC by IC × T;
/// weight gradient 16·G groups of OC × T by T × IC.
MatMulPlan planWinograd(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                        const ConvOptions &options);

/// The host cost model's estimate of a pass's transforms (ns), to add to the product's: the
/// same for each pass (the input's, the kernels' and the output's or output gradient's).
std::uint64_t winogradTransformNanoseconds(const ConvParams &params);

/// createConvTensor for a Winograd plan: channel-major activations, linearly mapped weights.
poplar::Tensor createWinogradTensor(poplar::Graph &graph, const ConvPlan &plan,
                                    const ConvParams &params, ConvOperand which,
                                    const poplar::Type &type, const std::string &name);

/// out = conv(in, weights). With `weightsTransposed`, `weights` is stored [G][IC][OC][3][3]
/// (the convolution's transposeAndFlipWeights form).
void buildWinogradConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                              const poplar::Tensor &in, const poplar::Tensor &weights,
                              bool weightsTransposed, const poplar::Tensor &out,
                              poplar::program::Sequence &prog, const std::string &name);

/// buildWeightGradient for a Winograd plan.
void buildWinogradWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                 const ConvParams &params, const poplar::Tensor &zDeltas,
                                 const poplar::Tensor &activations, const poplar::Tensor &dW,
                                 std::optional<float> scale, poplar::program::Sequence &prog,
                                 const std::string &name);

} // namespace poplin::detail
