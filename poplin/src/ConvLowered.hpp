// Convolutions lowered to one matrix product per group, for the layers Winograd cannot take:
// strided ones and their input gradients (input-dilated convolutions).
//
//   IM2COL  out[g] (OC × B·out) = W[g] (OC × IC·kernel) · patches[g] (IC·kernel × B·out)
//           patches gathered from the input (poplin::Im2col); the weight gradient is
//           dW[g] = dOut[g] · patches[g]ᵀ over the same patches.
//   COL2IM  Z[g] (OC·kernel × B·in) = W[g] (OC·kernel × IC) · in[g] (IC × B·in), then each
//           output sums, over the kernel elements, the Z column of the input position the
//           element reads (poplin::Col2im). An input dilated by s makes s^d - 1 of every s^d
//           patch entries zeros, which IM2COL would multiply and COL2IM never forms: so an
//           input gradient of a strided convolution costs what its forward pass costs.
// Both read the ConvParams transforms through inputIndex, so any 2-D FLOAT convolution is
// computed exactly; the planner offers them where they pay (ConvPlanner.cpp).
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

/// IM2COL or COL2IM for a 2-D FLOAT convolution with more than one kernel element (COL2IM for
/// the forward pass of an input-dilated one), else BLOCKS.
ConvMethod loweredMethod(const ConvParams &params, ConvPass pass);

/// Whether `method` is worth offering to "auto": IM2COL for strided convolutions without input
/// dilation, COL2IM for input-dilated ones, when the strided layer's output field is small.
bool loweringPays(const ConvParams &params, ConvMethod method);

/// The product of the pass: IM2COL forward M = OC, N = B·out, K = IC·kernel; IM2COL weight
/// gradient M = OC, N = IC·kernel, K = B·out; COL2IM M = OC·kernel, N = B·in, K = IC.
MatMulPlan planLowered(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                       ConvMethod method, const ConvOptions &options);

/// The host cost model's estimate of the gathers (ns), to add to the product's.
std::uint64_t loweredTransformNanoseconds(const ConvParams &params, ConvMethod method);

/// createConvTensor for a lowered plan.
poplar::Tensor createLoweredTensor(poplar::Graph &graph, const ConvPlan &plan,
                                   const ConvParams &params, ConvOperand which,
                                   const poplar::Type &type, const std::string &name);

/// out = conv(in, weights). With `weightsTransposed`, `weights` is stored [G][IC][OC][kernel]
/// (the convolution's transposeAndFlipWeights form).
void buildLoweredConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                             const poplar::Tensor &in, const poplar::Tensor &weights,
                             bool weightsTransposed, const poplar::Tensor &out,
                             poplar::program::Sequence &prog, const std::string &name);

/// buildWeightGradient for a lowered (IM2COL) plan.
void buildLoweredWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                const ConvParams &params, const poplar::Tensor &zDeltas,
                                const poplar::Tensor &activations, const poplar::Tensor &dW,
                                std::optional<float> scale, poplar::program::Sequence &prog,
                                const std::string &name);

} // namespace poplin::detail
